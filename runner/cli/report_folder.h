// Summarising a sweep folder (`runner report DIR`, and the end of every sweep): the table on the
// terminal, summary.json/.csv/.md, and the plots when Python has matplotlib.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runner/util/console.h"

namespace runner {

// Whether the plots were drawn; skipped means Python or matplotlib is not installed (said why).
enum class PlotOutcome { drawn, skipped, failed, none };

struct FolderReport {
  nlohmann::json summary;  // as written to summary.json
  PlotOutcome plots = PlotOutcome::none;
};

FolderReport report_folder(const std::filesystem::path& dir, Console& console);

// Runs scripts/SCRIPT_NAME [OPTIONS] ARGUMENT (plot_sweep.py DIR, plot_run.py REPORT) with
// /usr/bin/python3 ($RUNNER_PYTHON overrides it); when that Python is missing, says so; when it
// has no matplotlib, the script says so and exits 77: skipped.
PlotOutcome run_plot_script(const std::string& script_name, const std::filesystem::path& argument,
                            Console& console, const std::vector<std::string>& options = {});

// `runner report` fails when a plot script failed (a UserError naming it; the summary files are
// written by then). A skipped plot (no Python, no matplotlib) is not a failure.
void throw_if_plots_failed(PlotOutcome plots, const std::string& script_name);

}  // namespace runner
