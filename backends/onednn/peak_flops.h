// The machine's attainable FP32 rate: a large oneDNN matmul timed on the given threads, the
// yardstick that training throughput is compared with.
#pragma once

namespace runner::onednn {

// FLOP/s of the best of several (n x n) x (n x n) products.
double measure_peak_flops(int threads, int n = 2048);

}  // namespace runner::onednn
