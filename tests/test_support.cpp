// Shared test helpers: temporary folders and running the runner binary.
#include "test_support.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "runner/util/utf8.h"

namespace runner::testing {

TempDir::TempDir() {
  static std::atomic<int> counter{0};
  path_ = std::filesystem::temp_directory_path() /
          ("runner-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  std::filesystem::remove_all(path_);
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

namespace {

// With $RUNNER_TEST_SAVE_CONFIGS set to a folder, every YAML file a test writes is copied there:
// how tests/fuzz/make_seeds.py collects the tests' configs as the fuzzer's seeds.
void save_config_copy(const std::string& name, const std::string& text) {
  const char* folder = std::getenv("RUNNER_TEST_SAVE_CONFIGS");
  if (!folder || !*folder || !name.ends_with(".yaml")) return;
  static std::atomic<int> counter{0};
  auto copy = std::filesystem::path(folder) /
              (std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".yaml");
  std::ofstream(copy, std::ios::binary) << text;
}

}  // namespace

std::filesystem::path TempDir::write(const std::string& name, const std::string& text) const {
  auto file = path_ / name;
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << text;
  save_config_copy(name, text);
  return file;
}

CommandResult run_command(const std::string& command_line) {
  CommandResult result;
  std::string full = command_line + " 2>&1";
  FILE* pipe = ::popen(full.c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> buffer{};
  std::size_t n;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    result.output.append(buffer.data(), n);
  int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

CommandResult run_runner(const std::string& arguments) {
#ifdef RUNNER_BINARY
  return run_command(std::string(RUNNER_BINARY) + " " + arguments);
#else
  return run_command("false");
#endif
}

std::filesystem::path shared_output(const std::string& name,
                                    const std::function<bool(const std::filesystem::path&)>& make) {
  namespace fs = std::filesystem;
#ifdef RUNNER_BINARY
  // Keyed by the binary's size and time: a rebuilt runner makes its own.
  const fs::path binary = RUNNER_BINARY;
  const auto stamp = fs::last_write_time(binary).time_since_epoch().count();
  const fs::path root = binary.parent_path() / "test-shared";
#else
  const auto stamp = 0;
  const fs::path root = fs::temp_directory_path() / "runner-test-shared";
#endif
  fs::create_directories(root);
  // Made in place (what it writes names its own paths), complete once the marker beside it is.
  const fs::path folder = root / (name + "-" + std::to_string(static_cast<std::uint64_t>(stamp)));
  const fs::path complete = folder.string() + ".complete";
  const int lock = ::open((folder.string() + ".lock").c_str(), O_CREAT | O_RDWR, 0644);
  if (lock < 0 || ::flock(lock, LOCK_EX) != 0) throw std::runtime_error("shared_output: no lock");
  if (!fs::exists(complete)) {
    fs::remove_all(folder);
    fs::create_directories(folder);
    if (make(folder)) std::ofstream(complete) << "made\n";
  }
  ::close(lock);  // releases the lock
  return folder;
}

std::string report_path_in(const std::string& output) {
  auto at = output.rfind("report: ");
  if (at == std::string::npos) return "";
  return output.substr(at + 8, output.find('\n', at) - at - 8);
}

std::string interrupted_after(const std::string& command, double seconds) {
  return "(" + command + " & pid=$!; sleep " + std::to_string(seconds) +
         "; signalled=$(date +%s.%N); kill -INT $pid; for i in $(seq 100); do kill -0 $pid "
         "2>/dev/null || break; sleep 0.1; done; kill -KILL $pid 2>/dev/null; wait $pid; echo "
         "exit=$? seconds=$(awk \"BEGIN { print $(date +%s.%N) - $signalled }\"))";
}

double seconds_taken(const std::string& output) {
  auto at = output.find("seconds=");
  return at == std::string::npos ? -1 : std::atof(output.c_str() + at + 8);
}

std::filesystem::path source_dir() {
  // Set by a GPU bundle's backend_tests launcher (scripts/gpu_bundle.sh): the bundle carries
  // the golden files, and the build machine's source folder is not there.
  if (const char* dir = std::getenv("RUNNER_SOURCE_DIR"); dir && *dir) return dir;
#ifdef RUNNER_SOURCE_DIR
  return RUNNER_SOURCE_DIR;
#else
  return std::filesystem::current_path();
#endif
}

int exit_code_with_address_space(std::uint64_t bytes, const std::function<int()>& body) {
  pid_t child = fork();
  if (child < 0) return -1;
  if (child == 0) {
    rlimit limit{bytes, bytes};
    setrlimit(RLIMIT_AS, &limit);
    _exit(body());
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::size_t widest_line(const std::string& text) {
  std::size_t widest = 0;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    widest = std::max(widest, utf8_characters(std::string_view(text).substr(start, end - start)));
    start = end + 1;
  }
  return widest;
}

bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci && std::string(ci) == "true";
}

}  // namespace runner::testing
