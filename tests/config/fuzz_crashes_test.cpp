// Every input under tests/fuzz/crashes (each crashed, hung, ran out of memory or let a raw library
// exception out of the config path once, when config_fuzzer found it) now goes through that path
// (tests/fuzz/config_path.h) to a valid config or a UserError, quickly and without a crash.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "config_path.h"
#include "runner/util/errors.h"
#include "test_support.h"

namespace runner {
namespace {

constexpr unsigned kSecondsPerInput = 30;  // far beyond what any input needs: more is a hang

std::filesystem::path crash_folder() {
  return testing::source_dir() / "tests" / "fuzz" / "crashes";
}

std::vector<std::string> crash_inputs() {
  std::vector<std::string> names;
  if (!std::filesystem::is_directory(crash_folder())) return names;  // FolderIsNotEmpty fails
  for (const auto& entry : std::filesystem::directory_iterator(crash_folder())) {
    if (entry.is_regular_file()) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string read_bytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs the config path on `yaml` in a child process, so that a crash or a hang fails this input
// alone: "" when it ended in a valid config or a UserError, else what happened.
std::string outcome_in_child(const std::string& yaml, const std::string& file) {
  std::fflush(nullptr);
  pid_t child = ::fork();
  if (child == 0) {
    ::alarm(kSecondsPerInput);
#if !defined(__SANITIZE_ADDRESS__)  // AddressSanitizer reserves far more address space
    rlimit memory{rlim_t{4} << 30, rlim_t{4} << 30};
    ::setrlimit(RLIMIT_AS, &memory);
#endif
    try {
      fuzzing::check_config_text(yaml, file);
    } catch (const UserError&) {
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s escaped: %s\n", typeid(e).name(), e.what());
      ::_exit(3);
    } catch (...) {
      ::_exit(4);
    }
    ::_exit(0);
  }
  int status = 0;
  if (child < 0 || ::waitpid(child, &status, 0) != child) return "could not run a child process";
  if (WIFEXITED(status)) {
    switch (WEXITSTATUS(status)) {
      case 0:
        return "";
      case 3:
        return "an exception other than UserError escaped (its message is above)";
      case 4:
        return "a non-std exception escaped";
      default:
        return "exited with status " + std::to_string(WEXITSTATUS(status));
    }
  }
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
    return "still running after " + std::to_string(kSecondsPerInput) + " s";
  }
  return "killed by signal " + std::to_string(WIFSIGNALED(status) ? WTERMSIG(status) : 0) + " (" +
         strsignal(WIFSIGNALED(status) ? WTERMSIG(status) : 0) + ")";
}

class FuzzCrashInput : public ::testing::TestWithParam<std::string> {};

TEST_P(FuzzCrashInput, IsAValidConfigOrAUserError) {
  std::filesystem::path file = crash_folder() / GetParam();
  EXPECT_EQ(outcome_in_child(read_bytes(file), file.string()), "") << file;
}

// gtest names allow letters, digits and '_' only.
std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = std::filesystem::path(info.param).stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Crashes, FuzzCrashInput, ::testing::ValuesIn(crash_inputs()), test_name);

TEST(FuzzCrashInputs, FolderIsNotEmpty) {
  // An empty list would silently test nothing (a moved folder, a wrong source dir).
  EXPECT_FALSE(crash_inputs().empty()) << crash_folder();
}

}  // namespace
}  // namespace runner
