// How a run ended and what it did, as enums inside the runner; the report's `status` and `mode`
// strings only at the edges (writing a report, reading one back), spelled in run_status.cpp.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace runner {

// completed; diverged (NaN/Inf loss, stopped early); interrupted (Ctrl-C); stopped_early (a
// search's trial that ASHA stopped at a rung: an outcome, not a failure); and, for a sweep point
// that did not run: failed (e.g. no GPU backend), out_of_memory, invalid (its config); and
// running: the live report of a run still training (rewritten after every epoch), or of one
// killed before it could write its last.
enum class RunStatus {
  completed,
  diverged,
  interrupted,
  stopped_early,
  failed,
  out_of_memory,
  invalid,
  running
};

// The report's name: "completed", "out_of_memory", ...
const char* status_name(RunStatus status);

// The status a report's name stands for; nullopt for a name that is none of them.
std::optional<RunStatus> parse_run_status(std::string_view name);

// "completed, diverged, ..., invalid": the known names, for error messages.
std::string known_status_names();

// Done as planned: completed, or stopped early by a search (nothing to run again).
bool ended_as_planned(RunStatus status);

// What a sweep point's report.json says of its run, read leniently: no report, one that is not
// readable as a report of this runner (or names a status it does not know), or its status.
struct ReportedStatus {
  enum class Kind { none, unreadable, read };
  Kind kind = Kind::none;
  RunStatus status = RunStatus::completed;  // when read

  static ReportedStatus of(RunStatus status) { return {Kind::read, status}; }
  static ReportedStatus unreadable() { return {Kind::unreadable, RunStatus::completed}; }
  // A report's `status` text: read when it names a RunStatus, else unreadable.
  static ReportedStatus parse(std::string_view text);
  bool is(RunStatus wanted) const { return kind == Kind::read && status == wanted; }
  bool exists() const { return kind != Kind::none; }
  // Done as planned (completed or stopped early by a search).
  bool ended_as_planned() const;
  // For messages: "" (none), "unreadable", or the status's name.
  std::string text() const;
};

// What a run does: train (the config's epochs, evaluated), benchmark (timed steps only) or eval
// (`runner eval`: a checkpoint tested). The report's `mode`; a sweep's is train or benchmark.
enum class RunMode { train, benchmark, eval };

// "train" | "benchmark" | "eval".
const char* mode_name(RunMode mode);

// The mode a name stands for; nullopt for a name that is neither.
std::optional<RunMode> parse_run_mode(std::string_view name);

// Why training ended, the report's `stop_reason`: every epoch ran, early stopping
// (training.early_stopping), Ctrl-C, a loss that was no longer finite, or a search's ASHA rung.
enum class StopReason { epochs, early_stopping, interrupted, diverged, asha };

// "epochs", "early_stopping", "interrupted", "diverged", "asha".
const char* stop_reason_name(StopReason reason);

// The stop reason a name stands for; nullopt for any other.
std::optional<StopReason> parse_stop_reason(std::string_view name);

// The process exit code of a run that ended so: 0 completed or stopped_early, 130 interrupted,
// 1 otherwise.
int exit_code_for(RunStatus status);

}  // namespace runner
