// Collects version, build and hardware facts for reports.
#include "runner/report/environment.h"

#include <fmt/format.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <ctime>

#include "backends/onednn/onednn_backend.h"

namespace runner {
namespace {

std::string command_output(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen((command + " 2>/dev/null").c_str(), "r");
  if (!pipe) return out;
  std::array<char, 256> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe)) out += buffer.data();
  ::pclose(pipe);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

std::string git(const std::string& arguments) {
  return command_output(fmt::format("git -C '{}' {}", RUNNER_SOURCE_DIR, arguments));
}

}  // namespace

std::string runner_version() {
  return RUNNER_VERSION;
}

std::string git_commit() {
  std::string commit = git("rev-parse --short=12 HEAD");
  return commit.empty() ? RUNNER_GIT_COMMIT : commit;
}

bool git_tree_dirty() {
  return !git("status --porcelain --untracked-files=no").empty();
}

std::string timestamp_now() {
  std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char text[64];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S%z", &local);
  return text;
}

nlohmann::json environment_json(const DeviceInfo& device, int threads) {
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
  };
  for (const auto& [key, value] : device.details) env[key] = value;
  return env;
}

}  // namespace runner
