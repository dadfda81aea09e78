// `runner report DIR`: summary files, the table and the plots of a sweep folder.
#include "runner/cli/report_folder.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "runner/cli/commands.h"
#include "runner/cli/report_run.h"
#include "runner/html/sweep_page.h"
#include "runner/sweep/runs_overview.h"
#include "runner/sweep/summary.h"
#include "runner/sweep/summary_files.h"
#include "runner/sweep/summary_terminal.h"
#include "runner/sweep/sweep_plan.h"
#include "runner/util/child_process.h"
#include "runner/util/errors.h"
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

// Before reading anything: a read-only folder otherwise fails halfway, in Python.
void require_writable_folder(const std::filesystem::path& folder, const std::string& what) {
  if (!std::filesystem::is_directory(folder) || ::access(folder.c_str(), W_OK) == 0) return;
  throw UserError(
      fmt::format("{}: cannot write {} here ({}); copy the folder somewhere writable "
                  "and report the copy",
                  folder.string(), what, std::strerror(errno)));
}

}  // namespace

PlotOutcome run_plot_script(const std::string& script_name, const std::filesystem::path& argument,
                            Console& console, const std::vector<std::string>& options) {
  const char* configured = std::getenv("RUNNER_PYTHON");
  std::string python = configured && *configured ? configured : "/usr/bin/python3";
  // The scripts of $RUNNER_SOURCE_DIR where it is set (a GPU bundle's launchers set it to the
  // bundle, which carries scripts/), else of the source tree built from.
  const char* source = std::getenv("RUNNER_SOURCE_DIR");
  std::filesystem::path script =
      std::filesystem::path(source && *source ? source : RUNNER_SOURCE_DIR) / "scripts" /
      script_name;
  if (!std::filesystem::exists(python)) {
    console.warning(fmt::format(
        "plots skipped: {} not found (install python3 and python3-matplotlib)", python));
    return PlotOutcome::skipped;
  }
  std::vector<std::string> argv = {python, script.string()};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back(argument.string());
  int code = run_plot_step(argv, {console.quiet(), false});
  // The scripts exit with this code, having said so on stderr, where Python has no matplotlib
  // (scripts/plot_style.py).
  constexpr int kNoMatplotlib = 77;
  if (code == kNoMatplotlib) return PlotOutcome::skipped;
  if (code != 0) console.warning(fmt::format("plots: {} exited with {}", script.string(), code));
  return code == 0 ? PlotOutcome::drawn : PlotOutcome::failed;
}

void throw_if_plots_failed(PlotOutcome plots, const std::string& script_name) {
  if (plots != PlotOutcome::failed) return;
  throw UserError(fmt::format("the plots were not drawn: scripts/{} failed (its output is above)",
                              script_name));
}

FolderReport report_folder(const std::filesystem::path& dir, Console& console) {
  FolderReport out;
  nlohmann::json& summary = out.summary;
  summary = summarize_folder(dir);
  // A folder of unrelated runs (results/): tables by experiment and mode, no sweep plots.
  const bool unrelated =
      !std::filesystem::exists(dir / kSweepManifest) && holds_unrelated_runs(summary);
  write_summary_files(dir, summary);
  if (unrelated) write_file_atomically(dir / "summary.md", runs_overview_markdown(summary));
  // The full tables are in summary.md; the terminal gets what fits 100 columns.
  console.line(unrelated ? runs_overview_markdown(summary) : summary_terminal(summary));
  for (const auto& bad : summary.value("unreadable_reports", nlohmann::json::array())) {
    console.warning(fmt::format("left out: {}", bad["error"].get<std::string>()));
  }
  if (unrelated) {
    console.line(
        "plots: none for a folder of different experiments; `runner report RUN_FOLDER` plots "
        "one run's curves, `runner compare` sets runs side by side");
  } else {
    // One line for the plots: the terminal summary above is short.
    out.plots = run_plot_script("plot_sweep.py", dir, console, {"--brief"});
  }
  // After the plots, which the page embeds.
  const auto page = write_sweep_pages(summary, dir);
  console.result(fmt::format("summary: {} (every run's figures)", (dir / "summary.md").string()));
  if (out.plots == PlotOutcome::drawn)
    console.result(fmt::format("plots: {}", (dir / "plots").string()));
  console.result(
      fmt::format("page: {} (open it in a browser; it links each point's page)", page.string()));
  return out;
}

namespace {

// A folder of runs that is not a sweep's (results/, results/NAME): its table, and nothing written
// there unless asked (--html).
nlohmann::json print_runs_of_folder(const std::filesystem::path& dir, Console& console) {
  nlohmann::json summary = summarize_folder(dir);
  console.result(runs_overview_markdown(summary));  // what was asked for, also with --quiet
  for (const auto& bad : summary.value("unreadable_reports", nlohmann::json::array())) {
    console.warning(fmt::format("left out: {}", bad["error"].get<std::string>()));
  }
  console.line(fmt::format(
      "nothing written: {} holds runs, not a sweep; `runner report {} --html` writes its "
      "summary files, page and plots there, `runner runs {}` queries the runs",
      dir.string(), dir.string(), dir.string()));
  return summary;
}

}  // namespace

int report_command(const std::filesystem::path& dir, bool quiet, bool html) {
  Console console(quiet);
  if (auto report = single_run_report(dir)) {
    require_writable_folder(report->parent_path(), "the plots");
    return report_run(*report, console, html);
  }
  FolderReport report;
  if (!html && !std::filesystem::exists(dir / kSweepManifest)) {
    report.summary = print_runs_of_folder(dir, console);
  } else {
    require_writable_folder(dir, "the summary files and plots");
    report = report_folder(dir, console);
  }
  throw_if_plots_failed(report.plots, "plot_sweep.py");
  if (const auto& left_out = report.summary.value("unreadable_reports", nlohmann::json::array());
      !left_out.empty()) {
    throw UserError(
        fmt::format("{}: {} report(s) could not be read and are left out of the "
                    "summary (each named above)",
                    dir.string(), left_out.size()));
  }
  return 0;
}

}  // namespace runner
