// The oneDNN CPU backend: device facts and compilation (oneDNN errors become LibraryErrors).
#include "backends/onednn/onednn_backend.h"

#include <fmt/format.h>
#include <omp.h>

#include <fstream>
#include <new>
#include <thread>

#include "backends/onednn/onednn_program.h"
#include "backends/onednn/winograd16.h"
#include "runner/util/errors.h"
#include "runner/util/process_stats.h"

namespace runner::onednn {

std::string effective_isa() {
  using isa = dnnl::cpu_isa;
  switch (dnnl::get_effective_cpu_isa()) {
    case isa::sse41:
      return "sse41";
    case isa::avx:
      return "avx";
    case isa::avx2:
      return "avx2";
    case isa::avx2_vnni:
      return "avx2_vnni";
    case isa::avx512_core:
      return "avx512_core";
    case isa::avx512_core_vnni:
      return "avx512_core_vnni";
    case isa::avx512_core_bf16:
      return "avx512_core_bf16";
    case isa::avx512_core_amx:
      return "avx512_core_amx";
    default:
      return "other";
  }
}

std::string onednn_version() {
  const dnnl_version_t* v = dnnl_version();
  return fmt::format("{}.{}.{}", v->major, v->minor, v->patch);
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown CPU";
}

DeviceInfo OnednnBackend::info() const {
  DeviceInfo info;
  info.backend = "onednn";
  info.device = "cpu";
  info.name = cpu_model();
  info.memory_bytes = physical_memory_bytes();
  info.details["isa"] = effective_isa();
  info.details["onednn_version"] = onednn_version();
  info.details["cores"] = std::to_string(std::thread::hardware_concurrency());
  info.details["max_threads"] = std::to_string(omp_get_max_threads());
  // Which own kernels can run: a report says, since their rounding differs from oneDNN's
  // convolution kernels' (bf16 needs AVX-512 too).
  info.details["own_kernels"] = winograd16::available()
                                    ? "winograd16 (AVX-512), window-row weight gradients (bf16)"
                                    : "none (oneDNN for every layer)";
  info.precisions = cpu_precisions();
  return info;
}

std::map<Precision, PrecisionSupport> cpu_precisions() {
  using isa_t = dnnl::cpu_isa;
  const isa_t isa = dnnl::get_effective_cpu_isa();
  std::map<Precision, PrecisionSupport> precisions = {{Precision::fp32, PrecisionSupport::native}};
  // oneDNN 2.6 computes bf16 natively with AVX512-BF16's dot products or AMX, and emulates it on
  // the older AVX-512 cores (converting to FP32 around every product); below AVX-512 it has no
  // optimised bf16 kernels at all.
  if (isa == isa_t::avx512_core_bf16 || isa == isa_t::avx512_core_amx) {
    precisions[Precision::bf16] = PrecisionSupport::native;
  } else if (isa == isa_t::avx512_core || isa == isa_t::avx512_core_vnni) {
    precisions[Precision::bf16] = PrecisionSupport::emulated;
  }
  return precisions;
}

std::unique_ptr<Program> OnednnBackend::compile(const Graph& graph, const CompileOptions& options) {
  try {
    return std::make_unique<OnednnProgram>(graph, options);
  } catch (const dnnl::error& e) {
    if (e.status == dnnl_out_of_memory) throw std::bad_alloc();  // said as the host's
    throw LibraryError(fmt::format("oneDNN could not compile the model: {} (status {})", e.what(),
                                   static_cast<int>(e.status)));
  }
}

}  // namespace runner::onednn
