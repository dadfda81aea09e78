// posix_spawn and a wait that polls this process's interrupt flag.
#include "runner/util/child_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <optional>
#include <thread>

#include "runner/util/interrupt.h"

extern char** environ;

namespace runner {
namespace {

// Waits for `pid`, passing an interrupt on to it.
int wait_for(pid_t pid) {
  using clock = std::chrono::steady_clock;
  std::optional<clock::time_point> forwarded_at;
  bool killed = false;
  for (;;) {
    int status = 0;
    pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    if (done < 0 && errno != EINTR) return -1;
    if (interrupt_requested() && !forwarded_at) {
      ::kill(pid, SIGINT);
      forwarded_at = clock::now();
    } else if (forwarded_at && !killed && clock::now() - *forwarded_at > std::chrono::seconds(5)) {
      ::kill(pid, SIGKILL);  // it ignores SIGINT; the runner must still stop
      killed = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace

int run_child(const std::vector<std::string>& argv, ChildOutput output) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (output.discard_stdout)
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  if (output.discard_stderr)
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  int failed = ::posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (failed) return -1;
  int code = wait_for(pid);
  if (code == 128 + SIGINT || code == 130) request_interrupt();  // ended by Ctrl-C itself
  return code;
}

}  // namespace runner
