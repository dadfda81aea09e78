// Step times per precision, and the warning for a precision slower than fp32.
#include "runner/run/precision_timing.h"

#include <gtest/gtest.h>

#include <algorithm>

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

TEST(FastestPrecision, TheShortestStepWinsAndFp32OnATie) {
  EXPECT_EQ(fastest_of({{Precision::fp32, 0.0071}, {Precision::bf16, 0.0040}}), Precision::bf16);
  EXPECT_EQ(fastest_of({{Precision::fp32, 0.0071}, {Precision::bf16, 0.0326}}), Precision::fp32);
  EXPECT_EQ(fastest_of({{Precision::bf16, 0.005}, {Precision::fp32, 0.005}}), Precision::fp32);
  EXPECT_EQ(
      fastest_of({{Precision::fp32, 0.009}, {Precision::tf32, 0.004}, {Precision::bf16, 0.003}}),
      Precision::bf16);
  EXPECT_EQ(fastest_of({}), Precision::fp32);
}

TEST(FastestPrecision, CandidatesAreFp32AndWhatTheDeviceRunsNativelyButFp16) {
  DeviceInfo cpu;
  cpu.precisions = {{Precision::fp32, PrecisionSupport::native},
                    {Precision::bf16, PrecisionSupport::emulated}};
  EXPECT_EQ(fastest_candidates(cpu), std::vector<Precision>{Precision::fp32})
      << "an emulated bf16 is never faster: not worth its timing";
  DeviceInfo gpu;
  gpu.precisions = {{Precision::fp32, PrecisionSupport::native},
                    {Precision::tf32, PrecisionSupport::native},
                    {Precision::bf16, PrecisionSupport::native},
                    {Precision::fp16, PrecisionSupport::native}};
  const std::vector<Precision> candidates = fastest_candidates(gpu);
  EXPECT_EQ(candidates.front(), Precision::fp32);
  EXPECT_EQ(candidates.size(), 3u);
  EXPECT_EQ(std::count(candidates.begin(), candidates.end(), Precision::fp16), 0);
}

TEST(FastestPrecision, TheLineSaysTheChoiceAndEveryTimeOrThatItWasReplayed) {
  EXPECT_EQ(precision_choice_line(
                {Precision::bf16, {{Precision::fp32, 0.0006}, {Precision::bf16, 0.0004}}, false}),
            "precision: fastest -> bf16 (a training step: fp32 0.60 ms, bf16 0.40 ms)");
  EXPECT_EQ(precision_choice_line({Precision::bf16, {}, true}),
            "precision: fastest -> bf16 (the original run's choice, not timed again)");
}

}  // namespace
}  // namespace runner
