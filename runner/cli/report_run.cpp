// One run's summary and plots.
#include "runner/cli/report_run.h"

#include <fmt/format.h>

#include "runner/cli/report_folder.h"
#include "runner/html/run_page.h"
#include "runner/report/read_report.h"
#include "runner/run/run_output.h"
#include "runner/sweep/local_progress.h"  // live_progress_text

namespace runner {
namespace {

// "tiny_synthetic 20261123-...: train, completed; test accuracy 91.41 %, ..."
std::string run_summary(const RunRecord& report) {
  std::string text =
      fmt::format("{} {}: {}, {}", report.name.value_or("?"), report.run_id.value_or("?"),
                  report.mode ? mode_name(*report.mode) : "?",
                  report.status ? status_name(*report.status) : "?");
  // A live report: where the run was when it last wrote it (a killed run's report stays so).
  if (report.status == RunStatus::running) {
    if (const std::string place = live_progress_text(report.progress); !place.empty())
      text += fmt::format(" ({} at {})", place, report.finished_at.value_or("?"));
  }
  if (auto accuracy = field_of(report.metrics, &RecordMetrics::test_accuracy))
    text += fmt::format("; test accuracy {:.2f} %", 100 * *accuracy);
  if (auto loss = field_of(report.metrics, &RecordMetrics::test_loss))
    text += fmt::format(", test loss {:.4f}", *loss);
  const auto points = field_of(report.curves, &RecordCurves::train);
  text += fmt::format("; {} epoch(s), {} loss point(s)", report.epochs ? report.epochs->size() : 0,
                      points ? points->size() : 0);
  return text;
}

}  // namespace

std::optional<std::filesystem::path> single_run_report(const std::filesystem::path& path) {
  if (std::filesystem::is_regular_file(path)) return path;
  if (std::filesystem::is_regular_file(path / "report.json")) return path / "report.json";
  return std::nullopt;
}

int report_run(const std::filesystem::path& report_file, Console& console, bool html) {
  const RunRecord report = read_run_record(report_file);
  console.line(run_summary(report));
  if (auto line = throughput_line(report); !line.empty()) console.line(line);
  const PlotOutcome plots = run_plot_script("plot_run.py", report_file, console);
  if (html) console.result(fmt::format("page: {}", write_run_page(report, report_file).string()));
  throw_if_plots_failed(plots, "plot_run.py");
  // A benchmark's report has no curves: the script draws nothing for it.
  const auto folder = report_file.parent_path() / "plots";
  std::error_code ignored;
  if (plots == PlotOutcome::drawn && std::filesystem::is_directory(folder, ignored) &&
      !std::filesystem::is_empty(folder, ignored)) {
    console.result(fmt::format("plots: {}", folder.string()));
  }
  return 0;
}

}  // namespace runner
