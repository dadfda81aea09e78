// Attainable FLOP/s from a oneDNN matmul.
#include "backends/onednn/peak_flops.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <oneapi/dnnl/dnnl.hpp>
#include <stdexcept>

namespace runner::onednn {
namespace {

dnnl::memory::data_type input_type(Precision precision) {
  switch (precision) {
    case Precision::fp32:
      return dnnl::memory::data_type::f32;
    case Precision::bf16:
      return dnnl::memory::data_type::bf16;
    default:
      throw std::invalid_argument("measure_peak_flops: a CPU runs fp32 and bf16 only");
  }
}

}  // namespace

double measure_peak_flops(int threads, Precision precision, int n) {
  omp_set_num_threads(std::max(1, threads));
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  using tag = dnnl::memory::format_tag;
  const dnnl::memory::desc in({n, n}, input_type(precision), tag::ab);
  const dnnl::memory::desc out({n, n}, dnnl::memory::data_type::f32, tag::ab);
  dnnl::memory a(in, engine), b(in, engine), c(out, engine);
  for (auto* m : {&a, &b}) {  // zeros: the rate of a matmul does not depend on its values
    std::fill_n(static_cast<char*>(m->get_data_handle()), in.get_size(), 0);
  }
  dnnl::matmul matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(in, in, out), engine));
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
