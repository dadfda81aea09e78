// Shared test helpers: temporary folders and running the runner binary.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

// Whether this build runs under AddressSanitizer (GCC defines __SANITIZE_ADDRESS__, clang
// answers __has_feature): it reserves terabytes of address space, so address-space caps fail.
#if defined(__SANITIZE_ADDRESS__)
#define RUNNER_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RUNNER_TEST_ASAN 1
#endif
#endif
#ifndef RUNNER_TEST_ASAN
#define RUNNER_TEST_ASAN 0
#endif

namespace runner::testing {

inline constexpr bool kAddressSanitizer = RUNNER_TEST_ASAN;

// A fresh folder under the system temp dir, removed when the object goes away.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  // Writes text to a file in the folder and returns its path.
  std::filesystem::path write(const std::string& name, const std::string& text) const;

 private:
  std::filesystem::path path_;
};

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs a shell command line and captures its output and exit code.
CommandResult run_command(const std::string& command_line);

// Runs the built runner binary with the given arguments (a shell-quoted string).
CommandResult run_runner(const std::string& arguments);

// A shell command line that starts `command` in the background, sends it (that process alone)
// SIGINT after `seconds`, SIGKILLs it if it still runs 10 s later, and prints
// "exit=<its exit code> seconds=<from the signal to its end>" (from the signal: how long it
// takes to start on a busy machine is not what such a test measures).
std::string interrupted_after(const std::string& command, double seconds);

// The number after "seconds=" in such output, or -1.
double seconds_taken(const std::string& output);

// Runs `body` in a forked child whose address space is capped at `bytes` (too small for many
// thread stacks) and returns the exit code `body` returned; -1 when the child died of a signal.
int exit_code_with_address_space(std::uint64_t bytes, const std::function<int()>& body);

// Sets an environment variable for a scope, and puts back what it was (or unsets it) after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) saved_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (saved_) {
      ::setenv(name_, saved_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> saved_;
};

// A folder that `make` fills once for every test process of this build (for the same runner
// binary), for tests that only read what a run or sweep wrote: they share it instead of each
// training their own. Processes asking at once wait for the first (a lock file); `make` fills
// the folder it is given and returns false on failure (the next caller tries again). Nothing
// may write into the folder afterwards.
std::filesystem::path shared_output(const std::string& name,
                                    const std::function<bool(const std::filesystem::path&)>& make);

// The path on the last `report: <path>` line of a run's output, or "" when there is none.
std::string report_path_in(const std::string& output);

// The number of UTF-8 characters of the longest line of `text` (what a terminal shows).
std::size_t widest_line(const std::string& text);

// Whether this runs in CI (CI=true): tests needing a tool of the machine (Slurm, chromium) fail
// there instead of skipping.
bool in_ci();

// The repository's root folder (for configs/, schemas/ and the golden files of tests/):
// $RUNNER_SOURCE_DIR where it is set (a GPU bundle), else the folder the tests were built from.
std::filesystem::path source_dir();

}  // namespace runner::testing
