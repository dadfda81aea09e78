// What a summary was made of, for the head of summary.md: the sweep's mode and settings, the
// machines and commits its reports name, and when its runs started and finished.
#pragma once

#include <nlohmann/json.hpp>

namespace runner {

// From the sweep's manifest (sweep.json; null without one) and the summary rows: mode, repeats,
// benchmark (warm-up and timed steps; null in train mode), epochs, machines and commits (each
// distinct value, in row order), started_at and finished_at (the first start, the last finish).
nlohmann::json summary_context(const nlohmann::json& manifest, const nlohmann::json& rows);

}  // namespace runner
