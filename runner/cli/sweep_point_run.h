// One sweep point, run in process: its report from the run, or, when it could not run (invalid
// config, no such device, out of memory, a library failure), a short report saying why.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "runner/sweep/sweep_plan.h"

namespace runner {

struct PointRun {
  std::string
      status;  // the report's: completed, diverged, interrupted, failed, out_of_memory, invalid
  nlohmann::json report;
};

// Writes <sweep_dir>/<point id>/report.json.
PointRun run_sweep_point(const PlannedPoint& planned, const SweepSpec& spec,
                         const std::filesystem::path& base_config,
                         const std::filesystem::path& sweep_dir, bool verbose);

}  // namespace runner
