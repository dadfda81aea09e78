// `runner compare A B ...`: reports, run folders or folders of runs, side by side.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "runner/cli/commands.h"
#include "runner/cli/report_run.h"
#include "runner/html/compare_page.h"
#include "runner/report/compare_reports.h"
#include "runner/report/read_report.h"
#include "runner/util/errors.h"
#include "runner/util/files.h"
#include "runner/util/terminal_text.h"

namespace runner {
namespace {

// The report files `path` stands for: itself, <path>/report.json, or every report.json under a
// folder of runs (a sweep, results/), in path order.
std::vector<std::filesystem::path> report_files(const std::filesystem::path& path) {
  if (auto single = single_run_report(path)) return {*single};
  std::vector<std::filesystem::path> found;
  if (std::filesystem::is_directory(path)) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(path)) {
      if (entry.is_regular_file() && entry.path().filename() == "report.json")
        found.push_back(entry.path());
    }
  }
  if (found.empty()) {
    throw UserError(fmt::format(
        "{}: no report here; expected a report.json, a run folder holding one, or a folder of "
        "runs",
        path.string()));
  }
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace

int compare_command(const CompareOptions& options) {
  // Before anything is printed: --html naming a folder or a device is a mistake to say first.
  if (!options.html.empty()) check_replaceable_file(options.html, "--html");
  std::vector<LoadedReport> reports;
  for (const auto& path : options.paths) {
    for (const auto& file : report_files(path)) reports.push_back({file, read_run_record(file)});
  }
  if (reports.size() < 2) {
    throw UserError(
        fmt::format("compare: found {} report, expected two or more (reports, run "
                    "folders or folders of runs)",
                    reports.size()));
  }
  nlohmann::json comparison = compare_runs(reports);
  if (options.json) {
    std::cout << comparison.dump(2) << "\n";
  } else {
    std::cout << terminal_lines(comparison_text(comparison));  // names from the reports
  }
  if (!options.html.empty()) {
    write_file_atomically(options.html, compare_page(comparison, reports, options.html));
    std::cerr << "page: " << terminal_safe(options.html.string()) << "\n";
  }
  return 0;
}

}  // namespace runner
