// The process's command line, kept once by main's caller for the report's `argv`.
#pragma once

#include <string>
#include <vector>

namespace runner {

void remember_command_line(int argc, char** argv);
// As typed, program name first; empty when nothing was remembered (tests calling a command).
const std::vector<std::string>& command_line();

// The runner as it was started (argv[0], quoted: ./build/runner, /opt/runner/bin/runner), for
// the commands it prints for the user to run next; "runner" when nothing was remembered.
std::string runner_program();

// `text` as one word for bash: in single quotes where it holds anything but safe characters.
std::string shell_quote(const std::string& text);

// `words` as one bash command line, each quoted as needed.
std::string shell_command(const std::vector<std::string>& words);

}  // namespace runner
