// Attainable FP32 FLOP/s from a oneDNN matmul.
#include "backends/onednn/peak_flops.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <oneapi/dnnl/dnnl.hpp>
#include <vector>

namespace runner::onednn {

double measure_peak_flops(int threads, int n) {
  omp_set_num_threads(std::max(1, threads));
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  dnnl::memory::desc md({n, n}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::ab);
  dnnl::memory a(md, engine), b(md, engine), c(md, engine);
  for (auto* m : {&a, &b}) {
    float* p = static_cast<float*>(m->get_data_handle());
    std::fill(p, p + static_cast<std::size_t>(n) * n, 0.5f);
  }
  dnnl::matmul matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(md, md, md), engine));
  double best = 1e30;
  for (int repeat = 0; repeat < 6; ++repeat) {  // the first runs warm caches and threads up
    auto start = std::chrono::steady_clock::now();
    matmul.execute(stream, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}});
    stream.wait();
    best = std::min(
        best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return 2.0 * n * n * static_cast<double>(n) / best;
}

}  // namespace runner::onednn
