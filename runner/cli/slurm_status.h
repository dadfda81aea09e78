// `runner sweep status DIR` and `--wait`: where each point of a sweep submitted to Slurm
// stands, from its report and from squeue/sacct; when nothing is pending or running any more,
// the summary as for a local sweep.
#pragma once

#include <filesystem>

#include "runner/cli/launcher_options.h"
#include "runner/util/console.h"

namespace runner {

// Prints each point's status; with --wait, polls until no point is pending or running, then
// summarises the folder (runner report) and returns as wait_for_sweep.
int sweep_status_command(const SweepStatusOptions& options);

// Polls (every 2 s at first, then less often, up to 10 s) printing the counts when they change,
// then prints the table and summarises. Exit code 0 when some point completed, 1 when none did.
// Ctrl-C stops the waiting, not the job.
int wait_for_sweep(const std::filesystem::path& dir, Console& console);

}  // namespace runner
