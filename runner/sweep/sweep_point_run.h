// One sweep point, run in this process: its report from the run, or, when it could not run
// (invalid config, no such device, out of memory, a library failure), a short report saying why.
#pragma once

#include <filesystem>

#include "runner/run/experiment_run.h"
#include "runner/sweep/point_run.h"
#include "runner/sweep/sweep_plan.h"

namespace runner {

// Writes <sweep_dir>/<point id>/report.json (and its page with `write_page`, for report.html).
PointRun run_sweep_point(const PlannedPoint& planned, const SweepSpec& spec,
                         const std::filesystem::path& base_config,
                         const std::filesystem::path& sweep_dir, bool verbose,
                         const PageWriter& write_page);

}  // namespace runner
