// fork and exec: between them only async-signal-safe calls, everything else prepared before.
#include "runner/util/background_child.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace runner {
namespace {

std::vector<std::string> merged_environment(const std::vector<std::string>& extra) {
  std::vector<std::string> merged;
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& x : extra) replaced = replaced || x.substr(0, x.find('=')) == name;
    if (!replaced) merged.push_back(entry);
  }
  merged.insert(merged.end(), extra.begin(), extra.end());
  return merged;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

pid_t start_background_child(const std::vector<std::string>& argv,
                             const std::vector<std::string>& environment,
                             const std::filesystem::path& log) {
  std::vector<std::string> args = argv, env = merged_environment(environment);
  std::vector<char*> arg_ptrs = pointers(args), env_ptrs = pointers(env);
  int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    throw std::runtime_error(
        fmt::format("{}: cannot open the log file: {}", log.string(), std::strerror(errno)));
  }
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(127);  // the parent died before prctl
    ::dup2(log_fd, STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
    ::execve(arg_ptrs[0], arg_ptrs.data(), env_ptrs.data());
    ::_exit(127);
  }
  int fork_error = errno;
  ::close(log_fd);
  if (pid < 0) {
    throw std::runtime_error(
        fmt::format("cannot start {}: {}", argv[0], std::strerror(fork_error)));
  }
  return pid;
}

int exit_code_of(int wait_status) {
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
}

}  // namespace runner
