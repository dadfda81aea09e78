// How a run ended, as an enum inside the runner; the report's `status` string only at the edges
// (writing a report, reading one back).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace runner {

// completed; diverged (NaN/Inf loss, stopped early); interrupted (Ctrl-C); and, for a sweep
// point that did not run: failed (e.g. no GPU backend), out_of_memory, invalid (its config).
enum class RunStatus { completed, diverged, interrupted, failed, out_of_memory, invalid };

// The report's name: "completed", "out_of_memory", ...
const char* status_name(RunStatus status);

// The status a report's name stands for; nullopt for a name that is none of them.
std::optional<RunStatus> parse_run_status(std::string_view name);

// "completed, diverged, ..., invalid": the known names, for error messages.
std::string known_status_names();

// Why training ended, the report's `stop_reason`: every epoch ran, early stopping
// (training.early_stopping), Ctrl-C, or a loss that was no longer finite.
enum class StopReason { epochs, early_stopping, interrupted, diverged };

// "epochs", "early_stopping", "interrupted", "diverged".
const char* stop_reason_name(StopReason reason);

// The process exit code of a run that ended so: 0 completed, 130 interrupted, 1 otherwise.
int exit_code_for(RunStatus status);

}  // namespace runner
