// The metrics against scikit-learn's on the same logits and labels (scripts/metrics_golden.py
// wrote the golden file with scikit-learn; it is not needed here).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "runner/metrics/class_scores.h"
#include "runner/metrics/metric_kind.h"

namespace runner {
namespace {

struct GoldenCase {
  nlohmann::json golden;
  Evaluation set;
};

std::vector<GoldenCase> golden_cases() {
  std::ifstream in(std::string(RUNNER_SOURCE_DIR) + "/tests/metrics/metrics_golden.json");
  const nlohmann::json file = nlohmann::json::parse(in);
  std::vector<GoldenCase> cases;
  for (const nlohmann::json& c : file["cases"]) {
    const int classes = c["classes"];
    const std::vector<float> logits = c["logits"].get<std::vector<float>>();
    const std::vector<int> labels = c["labels"].get<std::vector<int>>();
    Evaluation set(classes);
    for (std::size_t n = 0; n < labels.size(); ++n) set.add(logits.data() + n * classes, labels[n]);
    cases.push_back({c, std::move(set)});
  }
  return cases;
}

TEST(MetricsGolden, TopKAccuracyEqualsScikitLearns) {
  int checked = 0;
  for (const GoldenCase& c : golden_cases()) {
    SCOPED_TRACE(c.golden["name"].get<std::string>());
    for (const auto& [k, expected] : c.golden["top_k"].items()) {
      const auto value = figure_value("top" + k + "_accuracy", c.set);
      ASSERT_TRUE(value.has_value());
      EXPECT_NEAR(*value, expected.get<double>(), 1e-12) << "k " << k;
      ++checked;
    }
    // top-1 is the accuracy.
    EXPECT_EQ(*figure_value("top1_accuracy", c.set), c.set.accuracy());
  }
  EXPECT_GE(checked, 12);
}

TEST(MetricsGolden, BalancedAccuracyAndMacroF1EqualScikitLearns) {
  for (const GoldenCase& c : golden_cases()) {
    SCOPED_TRACE(c.golden["name"].get<std::string>());
    EXPECT_NEAR(*figure_value("balanced_accuracy", c.set),
                c.golden["balanced_accuracy"].get<double>(), 1e-12);
    EXPECT_NEAR(*figure_value("macro_f1", c.set), c.golden["macro_f1"].get<double>(), 1e-12);
  }
}

// Per class: equal where scikit-learn's value is defined; none exactly where it warns and writes
// 0 (no prediction of the class: precision; no image of it: recall; neither: F1).
TEST(MetricsGolden, PerClassPrecisionRecallAndF1EqualScikitLearnsAndAreNoneWhereItWarns) {
  int undefined_precision = 0, undefined_recall = 0;
  for (const GoldenCase& c : golden_cases()) {
    SCOPED_TRACE(c.golden["name"].get<std::string>());
    const std::vector<ClassScores> scores = class_scores(c.set);
    ASSERT_EQ(scores.size(), c.golden["support"].size());
    for (std::size_t k = 0; k < scores.size(); ++k) {
      const ClassScores& s = scores[k];
      EXPECT_EQ(s.support, c.golden["support"][k].get<std::int64_t>()) << "class " << k;
      const auto expect_score = [&](const std::optional<double>& ours, const char* key,
                                    bool defined) {
        const double theirs = c.golden[key][k];
        if (defined) {
          ASSERT_TRUE(ours.has_value()) << key << " of class " << k;
          EXPECT_NEAR(*ours, theirs, 1e-12) << key << " of class " << k;
        } else {
          EXPECT_FALSE(ours.has_value()) << key << " of class " << k;
          EXPECT_EQ(theirs, 0.0) << key << " of class " << k;
        }
      };
      expect_score(s.precision, "precision", s.predicted > 0);
      expect_score(s.recall, "recall", s.support > 0);
      expect_score(s.f1, "f1", s.predicted + s.support > 0);
      undefined_precision += s.predicted == 0;
      undefined_recall += s.support == 0;
    }
  }
  // The golden sets hold both kinds of ill-defined class.
  EXPECT_GE(undefined_precision, 2);
  EXPECT_GE(undefined_recall, 2);
}

TEST(MetricFigures, NamesMapToTheirMetricAndBack) {
  EXPECT_EQ(metric_of_figure("top5_accuracy"), (MetricSpec{"top_k", 5}));
  EXPECT_EQ(metric_of_figure("top12_accuracy"), (MetricSpec{"top_k", 12}));
  EXPECT_EQ(metric_of_figure("macro_f1"), (MetricSpec{"macro_f1", 0}));
  EXPECT_EQ(metric_of_figure("balanced_accuracy"), (MetricSpec{"balanced_accuracy", 0}));
  for (const char* wrong :
       {"top0_accuracy", "top05_accuracy", "top-1_accuracy", "top_accuracy", "topx_accuracy",
        "top5", "accuracy", "loss", "macro_f2", "per_class_precision_recall", ""}) {
    EXPECT_FALSE(metric_of_figure(wrong).has_value()) << wrong;
  }
  EXPECT_EQ(figure_name({"top_k", 3}), "top3_accuracy");
  EXPECT_EQ(figure_name({"per_class_precision_recall", 0}), "");
  EXPECT_TRUE(is_known_figure("accuracy"));
  EXPECT_TRUE(is_known_figure("top2_accuracy"));
  EXPECT_FALSE(is_known_figure("f1"));
}

TEST(MetricFigures, SetFiguresFollowTheListAndLeaveOutTables) {
  Evaluation set(3);
  const float first[] = {3, 2, 1}, second[] = {1, 3, 2};
  set.add(first, 0);   // right
  set.add(second, 2);  // predicted 1, the label second
  const auto figures =
      set_figures({{"macro_f1", 0}, {"per_class_precision_recall", 0}, {"top_k", 2}}, set, "val_");
  ASSERT_EQ(figures.size(), 2u);
  EXPECT_EQ(figures[0].first, "val_macro_f1");
  EXPECT_EQ(figures[1].first, "val_top2_accuracy");
  EXPECT_DOUBLE_EQ(figures[1].second, 1.0);
  // Classes 0 (f1 1), 1 (predicted, no image: f1 0), 2 (an image, not predicted: f1 0).
  EXPECT_DOUBLE_EQ(figures[0].second, 1.0 / 3);
  // An empty set defines none of them.
  EXPECT_TRUE(set_figures({{"macro_f1", 0}, {"top_k", 1}}, Evaluation(3), "test_").empty());
}

TEST(MetricFigures, EqualLogitsRankTheLowerClassFirstAsThePrediction) {
  Evaluation set(3);
  const float tied[] = {1, 1, 1};
  set.add(tied, 1);  // predicted 0 (the first largest): class 1 ranks second
  EXPECT_EQ(set.correct, 0);
  EXPECT_EQ(set.top_k_correct(1), 0);
  EXPECT_EQ(set.top_k_correct(2), 1);
  set.add(tied, 0);
  EXPECT_EQ(set.top_k_correct(1), 1);
}

}  // namespace
}  // namespace runner
