// The machine's attainable rate in each precision: a large oneDNN matmul timed on the given
// threads, the yardstick that training throughput is compared with.
#pragma once

#include "runner/config/precision.h"

namespace runner::onednn {

// FLOP/s of the best of several (n x n) x (n x n) products with inputs in `precision` (fp32 or
// bf16; bf16 products accumulate and are written in fp32, as a bf16 training step's are).
double measure_peak_flops(int threads, Precision precision = Precision::fp32, int n = 2048);

}  // namespace runner::onednn
