// What a sweep point came to, however it ran (in this process, as a child, as a Slurm task): its
// status and report, the report written for a point that did not run, and the line printed.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "runner/report/run_record.h"
#include "runner/sweep/sweep_plan.h"
#include "runner/train/run_status.h"

namespace runner {

struct PointRun {
  RunStatus status = RunStatus::completed;  // the report's `status`
  RunRecord report;
};

// The report's `sweep_point` block: the sweep, the point's id, index, values, overrides and hash.
RecordSweepPoint sweep_point_record(const PlannedPoint& planned, const SweepSpec& spec);

// Writes a report for a point that did not run (or whose process died before writing one):
// its status, why, and the config as planned. `started_at` "" is now.
PointRun record_point(const PlannedPoint& planned, const SweepSpec& spec,
                      const std::filesystem::path& base_config,
                      const std::filesystem::path& sweep_dir, RunStatus status,
                      const std::string& error, const std::string& started_at);

// The exit code of `runner sweep --point K`: 0 completed or stopped early, 2 invalid (a config
// error at that point), 130 interrupted, 1 otherwise (failed, diverged, out of memory).
int point_exit_code(RunStatus status);

// "completed: 1234 images/s, step ..., validation accuracy ..., test accuracy ..." or
// "failed: <why>".
std::string result_line(const PointRun& run);

// Test hook: RUNNER_TEST_KILL_AFTER_POINTS=N kills the process (SIGKILL, nothing cleaned up)
// after it has run N points, as a crash or a killed job would.
void kill_if_test_asks(int points_run);

}  // namespace runner
