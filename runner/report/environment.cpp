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

RecordEnvironment environment_record(const DeviceInfo& device, int threads, Precision precision) {
  utsname system{};
  ::uname(&system);
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  // The device's facts first, each to its field (or kept as it is when the record lacks one).
  const nlohmann::json details(device.details);
  RecordEnvironment env = section_from_json<RecordEnvironment>(details);
  env.runner_version = runner_version();
  env.git_commit = git_commit();
  env.git_dirty = git_tree_dirty();
  env.compiler = fmt::format("g++ {}", __VERSION__);
  env.compiler_flags = RUNNER_CXX_FLAGS;
  env.os = fmt::format("{} {} {}", system.sysname, system.release, system.machine);
  env.hostname = host;
  env.cpu_model = onednn::cpu_model();
  env.onednn_version = onednn::onednn_version();
  env.onednn_isa = onednn::effective_isa();
  env.threads = threads;
  env.precision = precision;
  if (!device.name.empty() && device.backend == "cudnn") env.gpu_name = device.name;
  // How waiting OpenMP threads wait changes small steps' speed several-fold (README, Threads):
  // libgomp spins, then sleeps, unless these say otherwise. Recorded only when set.
  if (const char* policy = std::getenv("OMP_WAIT_POLICY")) env.omp_wait_policy = policy;
  if (const char* spins = std::getenv("GOMP_SPINCOUNT")) env.gomp_spincount = spins;
  return env;
}

}  // namespace runner
