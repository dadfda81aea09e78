// One run's summary and plots.
#include "runner/cli/report_run.h"

#include <fmt/format.h>

#include "runner/cli/report_folder.h"
#include "runner/html/run_page.h"
#include "runner/report/read_report.h"
#include "runner/run/run_output.h"

namespace runner {
namespace {

using nlohmann::json;

double number_at(const json& report, const std::string& pointer) {
  json::json_pointer p(pointer);
  return report.contains(p) && report[p].is_number() ? report[p].get<double>() : -1.0;
}

// "tiny_synthetic 20261123-...: train, completed; test accuracy 91.41 %, ..."
std::string run_summary(const json& report) {
  std::string text =
      fmt::format("{} {}: {}, {}", report.value("name", "?"), report.value("run_id", "?"),
                  report.value("mode", "?"), report.value("status", "?"));
  if (double accuracy = number_at(report, "/metrics/test_accuracy"); accuracy >= 0)
    text += fmt::format("; test accuracy {:.2f} %", 100 * accuracy);
  if (double loss = number_at(report, "/metrics/test_loss"); loss >= 0)
    text += fmt::format(", test loss {:.4f}", loss);
  std::size_t points = report.contains("curves") ? report["curves"]["train"].size() : 0;
  text += fmt::format("; {} epoch(s), {} loss point(s)",
                      report.value("epochs", json::array()).size(), points);
  return text;
}

}  // namespace

std::optional<std::filesystem::path> single_run_report(const std::filesystem::path& path) {
  if (std::filesystem::is_regular_file(path)) return path;
  if (std::filesystem::is_regular_file(path / "report.json")) return path / "report.json";
  return std::nullopt;
}

int report_run(const std::filesystem::path& report_file, Console& console, bool html) {
  json report = read_report_file(report_file);
  console.line(run_summary(report));
  if (auto line = throughput_line(report); !line.empty()) console.line(line);
  const PlotOutcome plots = run_plot_script("plot_run.py", report_file, console);
  if (html) {
    const auto page = write_run_page(run_record_from_json(report), report_file);
    console.result(fmt::format("page: {}", page.string()));
  }
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
