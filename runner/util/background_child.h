// Starting a child process that runs beside this one (a sweep point of `--jobs N`): its output
// goes to a log file, it has its own process group (a terminal's Ctrl-C reaches only this
// process, which passes it on once) and it gets SIGTERM if this process dies.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace runner {

// Starts `argv` (argv[0] a path) with this process's environment plus `environment` ("NAME=value",
// replacing a variable of that name), stdout and stderr appended to `log`. Returns its PID;
// throws std::runtime_error when it cannot be started.
pid_t start_background_child(const std::vector<std::string>& argv,
                             const std::vector<std::string>& environment,
                             const std::filesystem::path& log);

// The exit code of a waitpid() status: the code, or 128 + the signal that ended it.
int exit_code_of(int wait_status);

}  // namespace runner
