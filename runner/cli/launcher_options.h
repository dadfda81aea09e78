// The options of `runner sweep` that choose where points run (--launcher and the Slurm
// resources, which override the sweep file's launcher: block), and `runner sweep status DIR`.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "runner/sweep/slurm_settings.h"

namespace CLI {
class App;
}

namespace runner {

struct LauncherOptions {
  std::string type;  // "" keeps the sweep file's (local without one), else local | slurm
  SlurmSettings slurm{"", "", "", "", "", -1, -1, -1, {}};  // negative numbers: not given
  bool wait = false;  // after submitting, follow the array until it ends, then summarise
};

struct SweepStatusOptions {
  std::filesystem::path dir;  // a sweep folder
  bool wait = false, quiet = false;
};

void add_launcher_options(CLI::App& sweep_command, LauncherOptions& options);

// `runner sweep status DIR`, registered as the hidden top-level command "sweep-status" (the
// argument list is rewritten to it: see rewrite_sweep_status).
CLI::App* add_sweep_status_command(CLI::App& app, SweepStatusOptions& options);

// Rewrites `sweep status ...` to `sweep-status ...` in `args` (in order, not reversed); true when
// it did.
bool rewrite_sweep_status(std::vector<std::string>& args);

}  // namespace runner
