// The oneDNN CPU backend.
#pragma once

#include "backends/backend.h"

namespace runner::onednn {

class OnednnBackend : public Backend {
 public:
  DeviceInfo info() const override;
  std::unique_ptr<Program> compile(const Graph& graph, const CompileOptions& options) override;
};

// The ISA oneDNN dispatches to on this CPU, e.g. "avx2".
std::string effective_isa();
std::string onednn_version();
// The CPU's model name from /proc/cpuinfo.
std::string cpu_model();
// The precisions oneDNN runs on this CPU (its effective ISA, which ONEDNN_MAX_CPU_ISA can lower).
std::map<Precision, PrecisionSupport> cpu_precisions();

}  // namespace runner::onednn
