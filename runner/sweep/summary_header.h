// The head of summary.md: what was run (the sweep's name, mode, machine, commit, date, epochs or
// timed steps, point groups and runs) and, when some runs had a busy machine, a note saying so.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace runner {

// From the summary's `context` and rows; older summaries without a context get the title and
// what their rows say.
std::string summary_header(const nlohmann::json& summary);

}  // namespace runner
