// The attainable-rate yardstick of `runner devices --peak`: a rate for each precision the CPU
// runs, and a clear refusal of the GPU-only ones.
#include "backends/onednn/peak_flops.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "backends/onednn/onednn_backend.h"

namespace runner::onednn {
namespace {

TEST(PeakFlops, MeasuresEveryPrecisionTheCpuRuns) {
  OnednnBackend cpu;
  for (const auto& [precision, support] : cpu.info().precisions) {
    const double rate = measure_peak_flops(1, precision, 256);
    // 2 x 256^3 FLOPs: any CPU does more than 10 MFLOP/s, none more than 10 TFLOP/s on a thread.
    EXPECT_TRUE(std::isfinite(rate)) << precision_name(precision);
    EXPECT_GT(rate, 1e7) << precision_name(precision);
    EXPECT_LT(rate, 1e13) << precision_name(precision);
  }
}

TEST(PeakFlops, GpuPrecisionsAreRefused) {
  EXPECT_THROW(measure_peak_flops(1, Precision::tf32, 64), std::invalid_argument);
  EXPECT_THROW(measure_peak_flops(1, Precision::fp16, 64), std::invalid_argument);
}

}  // namespace
}  // namespace runner::onednn
