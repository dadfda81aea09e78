// `runner report DIR`: summary files, the table and the plots of a sweep folder.
#include "runner/cli/report_folder.h"

#include <fmt/format.h>

#include <cstdlib>

#include "runner/cli/commands.h"
#include "runner/cli/report_run.h"
#include "runner/sweep/runs_overview.h"
#include "runner/sweep/summary.h"
#include "runner/sweep/summary_files.h"
#include "runner/sweep/sweep_plan.h"
#include "runner/util/child_process.h"
#include "runner/util/files.h"
#include "runner/util/interrupt.h"

namespace runner {
namespace {

// The plot script's exit code; Ctrl-C while it runs (this process's or the script's own)
// ends the command as interrupted.
int run_plot_step(const std::vector<std::string>& argv, ChildOutput output) {
  int code = run_child(argv, output);
  throw_if_interrupted("drawing the plots");
  return code;
}

}  // namespace

bool plot_folder(const std::filesystem::path& dir, Console& console) {
  return run_plot_script("plot_sweep.py", dir, console);
}

bool run_plot_script(const std::string& script_name, const std::filesystem::path& argument,
                     Console& console) {
  const char* configured = std::getenv("RUNNER_PYTHON");
  std::string python = configured && *configured ? configured : "/usr/bin/python3";
  std::filesystem::path script = std::filesystem::path(RUNNER_SOURCE_DIR) / "scripts" / script_name;
  if (!std::filesystem::exists(python)) {
    console.warning(fmt::format(
        "plots skipped: {} not found (install python3 and python3-matplotlib)", python));
    return false;
  }
  if (run_plot_step({python, "-c", "import matplotlib"}, {true, true}) != 0) {
    console.warning(fmt::format(
        "plots skipped: {} has no matplotlib (Debian: apt install python3-matplotlib)", python));
    return false;
  }
  int code = run_plot_step({python, script.string(), argument.string()}, {console.quiet(), false});
  if (code != 0) console.warning(fmt::format("plots: {} exited with {}", script.string(), code));
  return code == 0;
}

nlohmann::json report_folder(const std::filesystem::path& dir, Console& console) {
  nlohmann::json summary = summarize_folder(dir);
  // A folder of unrelated runs (results/): tables by experiment and mode, no sweep plots.
  const bool unrelated =
      !std::filesystem::exists(dir / kSweepManifest) && holds_unrelated_runs(summary);
  write_summary_files(dir, summary);
  if (unrelated) write_file_atomically(dir / "summary.md", runs_overview_markdown(summary));
  console.line(unrelated ? runs_overview_markdown(summary) : summary_markdown(summary));
  for (const auto& bad : summary.value("unreadable_reports", nlohmann::json::array())) {
    console.warning(fmt::format("left out: {}", bad["error"].get<std::string>()));
  }
  if (unrelated) {
    console.line(
        "plots: none for a folder of different experiments; `runner report RUN_FOLDER` plots "
        "one run's curves, `runner compare` sets runs side by side");
  } else {
    plot_folder(dir, console);
  }
  console.result(fmt::format("summary: {}", (dir / "summary.md").string()));
  return summary;
}

int report_command(const std::filesystem::path& dir, bool quiet) {
  Console console(quiet);
  if (auto report = single_run_report(dir)) return report_run(*report, console);
  nlohmann::json summary = report_folder(dir, console);
  return summary.contains("unreadable_reports") ? 2 : 0;  // the summary of the rest is written
}

}  // namespace runner
