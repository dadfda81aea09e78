// `runner report DIR`: summary files, the table and the plots of a sweep folder.
#include "runner/cli/report_folder.h"

#include <fmt/format.h>
#include <sys/wait.h>

#include <csignal>
#include <cstdlib>

#include "runner/cli/commands.h"
#include "runner/sweep/summary.h"
#include "runner/sweep/summary_files.h"
#include "runner/util/interrupt.h"

namespace runner {
namespace {

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The command's exit code. std::system ignores SIGINT here while the child runs: a child (or
// its shell) ended by Ctrl-C is recorded as this process's interrupt.
int shell(const std::string& command) {
  int status = std::system(command.c_str());
  const bool killed_by_ctrl_c =
      status != -1 && ((WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) ||
                       (WIFEXITED(status) && WEXITSTATUS(status) == 130));
  if (killed_by_ctrl_c) request_interrupt();
  throw_if_interrupted("drawing the plots");
  return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

bool plot_folder(const std::filesystem::path& dir, Console& console) {
  const char* configured = std::getenv("RUNNER_PYTHON");
  std::string python = configured && *configured ? configured : "/usr/bin/python3";
  std::filesystem::path script =
      std::filesystem::path(RUNNER_SOURCE_DIR) / "scripts" / "plot_sweep.py";
  if (!std::filesystem::exists(python)) {
    console.warning(fmt::format(
        "plots skipped: {} not found (install python3 and python3-matplotlib)", python));
    return false;
  }
  if (shell(shell_quote(python) + " -c 'import matplotlib' >/dev/null 2>&1") != 0) {
    console.warning(fmt::format(
        "plots skipped: {} has no matplotlib (Debian: apt install python3-matplotlib)", python));
    return false;
  }
  std::string command = fmt::format("{} {} {}", shell_quote(python), shell_quote(script.string()),
                                    shell_quote(dir.string()));
  if (console.quiet()) command += " >/dev/null";
  int code = shell(command);
  if (code != 0) console.warning(fmt::format("plots: {} exited with {}", script.string(), code));
  return code == 0;
}

nlohmann::json report_folder(const std::filesystem::path& dir, Console& console) {
  nlohmann::json summary = summarize_folder(dir);
  write_summary_files(dir, summary);
  console.line(summary_markdown(summary));
  for (const auto& bad : summary.value("unreadable_reports", nlohmann::json::array())) {
    console.warning(fmt::format("left out: {}", bad["error"].get<std::string>()));
  }
  plot_folder(dir, console);
  console.result(fmt::format("summary: {}", (dir / "summary.md").string()));
  return summary;
}

int report_command(const std::filesystem::path& dir, bool quiet) {
  Console console(quiet);
  nlohmann::json summary = report_folder(dir, console);
  return summary.contains("unreadable_reports") ? 2 : 0;  // the summary of the rest is written
}

}  // namespace runner
