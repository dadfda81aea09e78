// `runner report RUN`: one run's report (its report.json, or the run folder holding it): a short
// summary on the terminal and its loss and accuracy plots (scripts/plot_run.py).
#pragma once

#include <filesystem>
#include <optional>

#include "runner/util/console.h"

namespace runner {

// The report.json that `path` names: the file itself, or <path>/report.json for a run folder;
// nothing for a folder of runs (a sweep, results/).
std::optional<std::filesystem::path> single_run_report(const std::filesystem::path& path);

// Prints the run's summary and draws its plots, and with `html` writes its page
// (RUN_DIR/report.html); 0, or 2 for a file that is not a report.
int report_run(const std::filesystem::path& report_file, Console& console, bool html);

}  // namespace runner
