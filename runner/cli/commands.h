// The subcommands; each returns the process exit code (0 success, 1 failure, 2 user error).
#pragma once

#include <filesystem>
#include <string>

#include "runner/cli/session.h"

namespace runner {

struct RunOptions : SessionOptions {
  std::filesystem::path resume;  // a checkpoint to continue training from
};

int run_command(const RunOptions& options);
int validate_command(const SessionOptions& options);
int describe_command(const SessionOptions& options);
int eval_command(const SessionOptions& options, const std::filesystem::path& checkpoint);
int devices_command();

}  // namespace runner
