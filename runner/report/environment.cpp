// Collects version, build and hardware facts for reports.
#include "runner/report/environment.h"

#include <fmt/format.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>

#include "backends/onednn/onednn_backend.h"

namespace runner {

std::string runner_version() {
  return RUNNER_VERSION;
}

// git_commit() and git_tree_dirty() are generated at build time (cmake/build_commit.cmake).

std::string timestamp_now() {
  std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char text[64];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S%z", &local);
  return text;
}

nlohmann::json environment_json(const DeviceInfo& device, int threads, Precision precision) {
  utsname system{};
  ::uname(&system);
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  nlohmann::json env = {
      {"runner_version", runner_version()},
      {"git_commit", git_commit()},
      {"git_dirty", git_tree_dirty()},
      {"compiler", fmt::format("g++ {}", __VERSION__)},
      {"compiler_flags", RUNNER_CXX_FLAGS},
      {"os", fmt::format("{} {} {}", system.sysname, system.release, system.machine)},
      {"hostname", host},
      {"cpu_model", onednn::cpu_model()},
      {"onednn_version", onednn::onednn_version()},
      {"onednn_isa", onednn::effective_isa()},
      {"threads", threads},
      {"precision", precision_name(precision)},
  };
  for (const auto& [key, value] : device.details) env[key] = value;
  // How waiting OpenMP threads wait changes small steps' speed several-fold (README, Threads):
  // libgomp spins, then sleeps, unless these say otherwise. Recorded only when set.
  if (const char* policy = std::getenv("OMP_WAIT_POLICY")) env["omp_wait_policy"] = policy;
  if (const char* spins = std::getenv("GOMP_SPINCOUNT")) env["gomp_spincount"] = spins;
  return env;
}

}  // namespace runner
