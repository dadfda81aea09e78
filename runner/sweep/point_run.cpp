// Recording a sweep point's outcome and the line it prints.
#include "runner/sweep/point_run.h"

#include <fmt/format.h>

#include <csignal>
#include <cstdlib>

#include "runner/report/environment.h"
#include "runner/report/machine_load.h"
#include "runner/report/report.h"
#include "runner/report/run_tags.h"

namespace runner {

nlohmann::json sweep_point_json(const PlannedPoint& planned, const SweepSpec& spec) {
  const SweepPoint& point = planned.point;
  return {{"sweep", spec.name},           {"id", point.id},
          {"index", point.index},         {"values", point.values_json()},
          {"overrides", point.overrides}, {"point_sha256", planned.point_sha}};
}

PointRun record_point(const PlannedPoint& planned, const SweepSpec& spec,
                      const std::filesystem::path& base_config,
                      const std::filesystem::path& sweep_dir, RunStatus status,
                      const std::string& error, const std::string& started_at) {
  nlohmann::json report = {{"schema_version", 1},
                           {"mode", mode_name(spec.mode)},
                           {"status", status_name(status)},
                           {"error", error},
                           {"name", planned.name.empty() ? spec.name : planned.name},
                           {"run_id", planned.point.id},
                           {"config_file", base_config.string()},
                           {"sweep_point", sweep_point_json(planned, spec)},
                           {"started_at", started_at.empty() ? timestamp_now() : started_at},
                           {"finished_at", timestamp_now()},
                           {"machine_load", MachineLoad().json()}};
  const nlohmann::json config = planned.config();
  if (config.is_object()) report["config"] = config;
  const nlohmann::json config_tags =
      config.is_object() && config.contains("tags") ? config["tags"] : nlohmann::json::object();
  report["tags"] = merge_tags(config_tags, parse_tag_options(spec.tags));
  write_report(sweep_dir / planned.point.id, report);
  return PointRun{status, run_record_from_json(report)};
}

int point_exit_code(RunStatus status) {
  return status == RunStatus::invalid ? 2 : exit_code_for(status);
}

std::string result_line(const PointRun& run) {
  const RunRecord& r = run.report;
  if (run.status != RunStatus::completed) {
    return fmt::format("{}: {}", status_name(run.status), r.error.value_or(""));
  }
  const RecordStepTime step = r.step_time.value_or(RecordStepTime{});
  std::string line =
      fmt::format("completed: {:.0f} images/s, step {:.3f} ms (p10 {:.3f}, p90 {:.3f})",
                  value_or_nan(step.images_per_second), 1e3 * value_or_nan(step.median_seconds),
                  1e3 * value_or_nan(step.p10_seconds), 1e3 * value_or_nan(step.p90_seconds));
  for (const auto& [value, name] :
       {std::pair{field_of(r.metrics, &RecordMetrics::val_accuracy), "validation"},
        {field_of(r.metrics, &RecordMetrics::test_accuracy), "test"}}) {
    if (value) line += fmt::format(", {} accuracy {:.2f} %", name, 100 * *value);
  }
  return line;
}

void kill_if_test_asks(int points_run) {
  const char* text = std::getenv("RUNNER_TEST_KILL_AFTER_POINTS");
  if (text && std::atoi(text) == points_run) std::raise(SIGKILL);
}

}  // namespace runner
