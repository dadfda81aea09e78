// Recording a sweep point's outcome and the line it prints.
#include "runner/sweep/point_run.h"

#include <fmt/format.h>

#include <csignal>
#include <cstdlib>

#include "runner/report/environment.h"
#include "runner/report/machine_load.h"
#include "runner/report/report.h"
#include "runner/report/run_tags.h"
#include "runner/util/folders.h"

namespace runner {

RecordSweepPoint sweep_point_record(const PlannedPoint& planned, const SweepSpec& spec) {
  const SweepPoint& point = planned.point;
  return {spec.name,       point.id,          point.index, point.values_json(),
          point.overrides, planned.point_sha, {}};
}

PointRun record_point(const PlannedPoint& planned, const SweepSpec& spec,
                      const std::filesystem::path& base_config,
                      const std::filesystem::path& sweep_dir, RunStatus status,
                      const std::string& error, const std::string& started_at) {
  RunRecord report;
  report.schema_version = 1;
  report.mode = spec.mode;
  report.status = status;
  report.error = error;
  report.name = planned.name.empty() ? spec.name : planned.name;
  report.run_id = planned.point.id;
  report.config_file = base_config.string();
  report.sweep_point = sweep_point_record(planned, spec);
  report.started_at = started_at.empty() ? timestamp_now() : started_at;
  report.finished_at = timestamp_now();
  report.machine_load = MachineLoad().record();
  const nlohmann::json config = planned.config();
  if (config.is_object()) report.config = config;
  const nlohmann::json config_tags =
      config.is_object() && config.contains("tags") ? config["tags"] : nlohmann::json::object();
  report.tags = merge_tags(config_tags, parse_tag_options(spec.tags));
  // Never through a link planted as the point's folder: the report would land in its target.
  if (first_link_inside({sweep_dir, planned.point.id}).empty())
    write_report(sweep_dir / planned.point.id, report);
  return PointRun{status, std::move(report)};
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
