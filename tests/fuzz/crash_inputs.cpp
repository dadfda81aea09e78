// Listing and reading the crash inputs, and running one in a child process.
#include "crash_inputs.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fuzz_target.h"
#include "test_support.h"

namespace runner::fuzzing {

namespace {

std::filesystem::path folder_path(const std::string& folder) {
  return testing::source_dir() / "tests" / "fuzz" / folder;
}

}  // namespace

std::vector<std::string> crash_inputs(const std::string& folder) {
  std::vector<std::string> names;
  if (!std::filesystem::is_directory(folder_path(folder))) return names;  // a test says so
  for (const auto& entry : std::filesystem::directory_iterator(folder_path(folder))) {
    if (entry.is_regular_file()) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string crash_input(const std::string& folder, const std::string& name) {
  std::ifstream in(folder_path(folder) / name, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

std::string outcome_in_child(const std::function<void()>& body, unsigned seconds) {
  std::fflush(nullptr);
  pid_t child = ::fork();
  if (child == 0) {
    ::alarm(seconds);
    if (!testing::kAddressSanitizer) {  // AddressSanitizer reserves far more address space
      rlimit memory{rlim_t{4} << 30, rlim_t{4} << 30};
      ::setrlimit(RLIMIT_AS, &memory);
    }
    std::string escaped = escaped_exception(body);
    if (!escaped.empty()) std::fprintf(stderr, "%s escaped\n", escaped.c_str());
    ::_exit(escaped.empty() ? 0 : 3);
  }
  int status = 0;
  if (child < 0 || ::waitpid(child, &status, 0) != child) return "could not run a child process";
  if (WIFEXITED(status)) {
    switch (WEXITSTATUS(status)) {
      case 0:
        return "";
      case 3:
        return "an exception other than UserError escaped (its message is above)";
      default:
        return "exited with status " + std::to_string(WEXITSTATUS(status));
    }
  }
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
    return "still running after " + std::to_string(seconds) + " s";
  }
  return "killed by signal " + std::to_string(WIFSIGNALED(status) ? WTERMSIG(status) : 0) + " (" +
         strsignal(WIFSIGNALED(status) ? WTERMSIG(status) : 0) + ")";
}

std::string crash_test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = std::filesystem::path(info.param).stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

}  // namespace runner::fuzzing
