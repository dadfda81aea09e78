// One sweep point, run in process: its report from the run, or, when it could not run (invalid
// config, no such device, out of memory, a library failure), a short report saying why.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "runner/sweep/sweep_plan.h"
#include "runner/train/run_status.h"

namespace runner {

struct PointRun {
  RunStatus status = RunStatus::completed;  // the report's `status`
  nlohmann::json report;
};

// Writes <sweep_dir>/<point id>/report.json.
PointRun run_sweep_point(const PlannedPoint& planned, const SweepSpec& spec,
                         const std::filesystem::path& base_config,
                         const std::filesystem::path& sweep_dir, bool verbose);

// Writes a report for a point that did not run (or whose process died before writing one):
// its status, why, and the config as planned. `started_at` "" is now.
PointRun record_point(const PlannedPoint& planned, const SweepSpec& spec,
                      const std::filesystem::path& base_config,
                      const std::filesystem::path& sweep_dir, RunStatus status,
                      const std::string& error, const std::string& started_at);

// The exit code of `runner sweep --point K`: 0 completed, 2 invalid (a config error at that point),
// 130 interrupted, 1 otherwise (failed, diverged, out of memory).
int point_exit_code(RunStatus status);

}  // namespace runner
