// The command line (CLI11): parses arguments, runs a subcommand, maps errors to exit codes
// (0 success, 1 failure, 2 user error).
#pragma once

namespace runner {

int run_cli(int argc, char** argv);

}  // namespace runner
