// `runner sweep status DIR` for a sweep run on this machine (no Slurm job recorded): each
// point's status from the sweep's plan (sweep.json), its folder and report, and whether a sweep
// runs into the folder now; the counts and the time left.
#pragma once

#include <filesystem>

#include "runner/util/console.h"

namespace runner {

// Prints the table and the counts. With `wait`, first polls while a sweep runs into the folder
// (the counts when they change), then summarises the folder as `runner report` does. Exit code
// 0 when some point completed or the sweep still runs, 1 when none completed and none runs.
int local_sweep_status(const std::filesystem::path& dir, Console& console, bool wait);

}  // namespace runner
