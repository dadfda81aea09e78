// A sweep's summary for the terminal, at the end of every sweep and `runner report DIR`: the
// head of summary.md and one line per point group (mean ± std over its repeats) in at most
// `width` columns: the axes by their short names, the figures that any group has (no GPU
// columns on a CPU), fewer figures and shortened values where the width runs out. The full
// tables stay in summary.md and report.html.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace runner {

std::string summary_terminal(const nlohmann::json& summary, std::size_t width = 100);

}  // namespace runner
