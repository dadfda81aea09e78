// Evaluation against a hand count: the confusion matrix (true class by predicted class), the
// per-class accuracy, and "n/a" (null in the report) for a class without images.
#include "runner/train/evaluation.h"

#include <gtest/gtest.h>

#include "runner/report/report.h"

namespace runner {
namespace {

// A program that answers each image with the class its first byte names.
class FirstByteAnswers : public Program {
 public:
  explicit FirstByteAnswers(int classes) : classes_(classes) {}
  void predict(const std::uint8_t* images, int count, float* logits) override {
    for (int n = 0; n < count; ++n) {
      for (int k = 0; k < classes_; ++k) logits[n * classes_ + k] = k == images[n] ? 2.0f : 0.0f;
    }
  }
  void train_step(const TrainBatch&) override {}
  LossSum take_loss() override { return {}; }
  void set_learning_rate(double) override {}
  void set_momentum(double) override {}
  void profile_train_step(const TrainBatch&, std::vector<StepTiming>&) override {}
  std::vector<HostTensor> parameters() const override { return {}; }
  void load_parameters(const std::vector<HostTensor>&) override {}
  std::vector<HostTensor> optimizer_state() const override { return {}; }
  void load_optimizer_state(const std::vector<HostTensor>&) override {}

 private:
  int classes_;
};

// Four classes; the images (one byte each) are the answers. Class d has no images.
Dataset answered(const std::vector<std::int32_t>& labels,
                 const std::vector<std::uint8_t>& answers) {
  Dataset data;
  data.channels = data.height = data.width = 1;
  data.class_names = {"a", "b", "c", "d"};
  data.labels = labels;
  data.images = answers;
  return data;
}

TEST(Evaluation, CountsTheConfusionMatrixByTrueAndPredictedClass) {
  const Dataset data = answered({0, 0, 1, 1, 1, 2, 0}, {0, 1, 1, 1, 0, 1, 2});
  FirstByteAnswers program(4);
  const Evaluation e = evaluate(program, data, 3);  // batches of 3, 3 and 1
  // By hand: a -> a, b, c; b -> b, b, a; c -> b.
  const std::vector<std::int64_t> expected = {1, 1, 1, 0,   // a
                                              1, 2, 0, 0,   // b
                                              0, 1, 0, 0,   // c
                                              0, 0, 0, 0};  // d
  EXPECT_EQ(e.confusion, expected);
  EXPECT_EQ(e.correct, 3);
  EXPECT_EQ(e.count, 7);
  EXPECT_TRUE(e.has_images(2));
  EXPECT_FALSE(e.has_images(3));

  RunRecord report;
  report.metrics = metrics_record(e, data.class_names);
  const nlohmann::json metrics = run_record_json(report)["metrics"];
  EXPECT_EQ(metrics["confusion_matrix"],
            nlohmann::json({{1, 1, 1, 0}, {1, 2, 0, 0}, {0, 1, 0, 0}, {0, 0, 0, 0}}));
  EXPECT_EQ(metrics["classes"], nlohmann::json({"a", "b", "c", "d"}));
  EXPECT_DOUBLE_EQ(metrics["per_class_accuracy"]["b"].get<double>(), 2.0 / 3);
  EXPECT_EQ(metrics["per_class_accuracy"]["c"], 0.0);
  EXPECT_TRUE(metrics["per_class_accuracy"]["d"].is_null()) << "no images: not a number";
}

TEST(Evaluation, AClassWithoutImagesIsNotApplicableNotZero) {
  const Dataset data = answered({0, 1}, {1, 1});
  FirstByteAnswers program(4);
  const Evaluation e = evaluate(program, data, 10);
  EXPECT_EQ(class_accuracy_text(e, 0), "0.0 %");
  EXPECT_EQ(class_accuracy_text(e, 1), "100.0 %");
  EXPECT_EQ(class_accuracy_text(e, 3), "n/a");
}

}  // namespace
}  // namespace runner
