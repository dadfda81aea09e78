// Step times per precision, and the warning for a precision slower than fp32.
#include "runner/run/precision_timing.h"

#include <gtest/gtest.h>

#include "backends/layer_cases.h"
#include "backends/onednn/onednn_backend.h"
#include "runner/config/model_spec.h"
#include "runner/graph/graph.h"

namespace runner {
namespace {

TEST(PrecisionTiming, TheWarningComparesWithFp32AndSaysBothFigures) {
  const std::vector<PrecisionStepTime> slower = {{Precision::bf16, 0.0326},
                                                 {Precision::fp32, 0.0071}};
  EXPECT_EQ(slower_precision_warning(Precision::bf16, slower, "cpu"),
            "warning: training.precision bf16 is slower than fp32 on this cpu: a training step "
            "took 32.6 ms in bf16 and 7.1 ms in fp32 (0.22x); train in fp32 here");
  const std::vector<PrecisionStepTime> faster = {{Precision::bf16, 0.004},
                                                 {Precision::fp32, 0.0071}};
  EXPECT_EQ(slower_precision_warning(Precision::bf16, faster, "cpu"), "");
  EXPECT_EQ(slower_precision_warning(Precision::fp32, slower, "cpu"), "") << "fp32 itself";
  EXPECT_EQ(slower_precision_warning(Precision::bf16, {{Precision::bf16, 1.0}}, "cpu"), "")
      << "nothing to compare with";
}

TEST(PrecisionTiming, TimesAStepInEveryPrecisionTheCpuRuns) {
  ModelSpec model;
  model.layers = {testing::layer("flat", "flatten"),
                  testing::layer("fc", "linear", {{"out_features", 3}})};
  const Graph graph = build_graph(model, Shape{1, 6, 6}, 3);
  onednn::OnednnBackend cpu;
  CompileOptions options;
  options.train_batch = 4;
  options.eval_batch = 4;
  std::vector<Precision> precisions;
  for (const auto& [precision, support] : cpu.info().precisions) precisions.push_back(precision);
  const std::vector<PrecisionStepTime> times =
      time_training_steps(cpu, graph, options, precisions, 3);
  ASSERT_EQ(times.size(), precisions.size());
  for (std::size_t i = 0; i < times.size(); ++i) {
    EXPECT_EQ(times[i].precision, precisions[i]);
    EXPECT_GT(times[i].median_seconds, 0) << precision_name(precisions[i]);
    EXPECT_LT(times[i].median_seconds, 10) << precision_name(precisions[i]);
  }
}

}  // namespace
}  // namespace runner
