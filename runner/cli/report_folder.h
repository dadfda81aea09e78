// Summarising a sweep folder (`runner report DIR`, and the end of every sweep): the table on the
// terminal, summary.json/.csv/.md, and the plots when Python has matplotlib.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>

#include "runner/util/console.h"

namespace runner {

// Returns the summary it wrote.
nlohmann::json report_folder(const std::filesystem::path& dir, Console& console);

// Runs scripts/plot_sweep.py DIR with /usr/bin/python3 ($RUNNER_PYTHON overrides it); when that
// Python is missing or has no matplotlib, says so and why, and returns false.
bool plot_folder(const std::filesystem::path& dir, Console& console);

// The same for another script of scripts/ and its argument (scripts/plot_run.py REPORT).
bool run_plot_script(const std::string& script_name, const std::filesystem::path& argument,
                     Console& console);

}  // namespace runner
