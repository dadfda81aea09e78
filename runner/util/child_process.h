// Running a helper program (the plot script) so that Ctrl-C reaches it and ends the runner too:
// unlike std::system, which ignores SIGINT in this process while the child runs.
#pragma once

#include <string>
#include <vector>

namespace runner {

struct ChildOutput {
  bool discard_stdout = false;
  bool discard_stderr = false;
};

// Runs `argv` (argv[0] a path) and waits for it. An interrupt of this process is passed on to
// the child as SIGINT (SIGKILL if it is still running 5 s later). Returns the child's exit code,
// or 128 + the signal that ended it; -1 when it could not be started. Afterwards
// interrupt_requested() is true when the child was ended by Ctrl-C, this process's or its own.
int run_child(const std::vector<std::string>& argv, ChildOutput output = {});

}  // namespace runner
