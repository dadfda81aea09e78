// Running a command-line tool (sbatch, squeue, sacct) found on PATH and capturing what it prints,
// for the tools whose output the runner reads.
#pragma once

#include <string>
#include <vector>

namespace runner {

struct CapturedOutput {
  bool started = false;  // false: the program was not found on PATH (or could not start)
  int exit_code = -1;    // its exit code, or 128 + the signal that ended it
  std::string out, err;  // its stdout and stderr
  bool ok() const { return started && exit_code == 0; }
};

// Runs `argv` (argv[0] looked up on PATH, stdin /dev/null) and waits for it.
CapturedOutput run_captured(const std::vector<std::string>& argv);

// "sbatch: <its stderr, or its exit code>" for an error message; for a program not found, says
// so and `install_hint` (e.g. "is this a Slurm login node?").
std::string describe_failure(const std::vector<std::string>& argv, const CapturedOutput& output,
                             const std::string& install_hint);

}  // namespace runner
