// `runner compare`: reports side by side. Reports whose configs agree up to the seed (and tags)
// are repeats of one config, a group; groups are compared by their config and environment
// differences and their metrics' means, with each delta judged against the repeats' spread.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runner/report/read_report.h"

namespace runner {

// The comparison as `runner compare --json` prints it:
// {"groups": [{"label", "name", "mode", "runs", "seeds", "reports"}],
//  "config_differences": [{"path", "values": [per group]}],
//  "environment_differences": [{"path", "values": [per group; "a | b" when its runs differ]}],
//  "metrics": [{"metric", "unit", "seed_dependent", "groups": [{"n", "mean", "std"}], "deltas":
//    [per group after the first: {"delta", "relative", "noise", "within_noise"}]}]}
// `unit`: share (an accuracy), loss, count, rate (images/s), seconds, bytes. `noise` is the larger
// std of the two groups (null without repeats); within_noise is |delta| < 2 noise, null when
// there is no noise to judge by or the metric does not depend on the seed (timings, memory).
nlohmann::json compare_runs(const std::vector<LoadedReport>& reports);

// The comparison as text for the terminal.
std::string comparison_text(const nlohmann::json& comparison);

// A group's figure as the comparison shows it, in its unit: "90.00 % ± 0.42 % (n=3)"; "-"
// when no run of the group has it.
std::string stats_text(const nlohmann::json& stats, const std::string& unit);

// A group's delta against A: "+1.25 pts (+1.4 %)"; "-" when there is none. The seed-noise
// verdict is the caller's to add (`within_noise`).
std::string delta_text(const nlohmann::json& delta, const std::string& unit);

}  // namespace runner
