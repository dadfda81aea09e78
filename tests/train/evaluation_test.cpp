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
  std::vector<std::int64_t> dense;
  for (int t = 0; t < 4; ++t) {
    for (int p = 0; p < 4; ++p) dense.push_back(e.confused(t, p));
  }
  EXPECT_EQ(dense, expected);
  EXPECT_EQ(e.confusion.size(), 6u) << "only the pairs that occur";
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

// Past kConfusionMatrixClasses classes the report holds the most frequent mistakes, not a matrix
// that grows with the square of the classes (5,000 classes once made a 276 MB report).
TEST(Evaluation, ManyClassesReportTheirMostFrequentMistakesNotTheMatrix) {
  const int classes = 250;  // answers are bytes: up to 256 classes
  Dataset data;
  data.channels = data.height = data.width = 1;
  for (int k = 0; k < classes; ++k) data.class_names.push_back("c" + std::to_string(k));
  // Class k's images: one right, and k % 3 taken for class (k + 1) % classes.
  for (int k = 0; k < classes; ++k) {
    data.labels.push_back(k);
    data.images.push_back(static_cast<std::uint8_t>(k));
    for (int m = 0; m < k % 3; ++m) {
      data.labels.push_back(k);
      data.images.push_back(static_cast<std::uint8_t>((k + 1) % classes));
    }
  }
  FirstByteAnswers program(classes);
  const Evaluation e = evaluate(program, data, 64);
  EXPECT_EQ(e.confused(2, 3), 2);
  EXPECT_EQ(e.confused(3, 4), 0);
  RunRecord report;
  report.metrics = metrics_record(e, data.class_names);
  const nlohmann::json metrics = run_record_json(report)["metrics"];
  EXPECT_FALSE(metrics.contains("confusion_matrix"));
  ASSERT_TRUE(metrics.contains("confusion_pairs"));
  const nlohmann::json& pairs = metrics["confusion_pairs"];
  ASSERT_EQ(pairs.size(), kConfusionPairs);
  // The classes k % 3 == 2 make two mistakes each, most images first, then by true class.
  EXPECT_EQ(pairs[0], (nlohmann::json{{"true", "c2"}, {"predicted", "c3"}, {"images", 2}}));
  EXPECT_EQ(pairs[1]["true"], "c5");
  EXPECT_EQ(pairs[kConfusionPairs - 1]["images"], 1);
  EXPECT_NE(metrics["confusion_matrix_omitted"].get<std::string>().find("250 classes"),
            std::string::npos);
  EXPECT_LT(metrics.dump().size(), 40'000u);
  EXPECT_EQ(metrics["per_class_accuracy"].size(), static_cast<std::size_t>(classes));
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
