// The `caffe time`-like table of a benchmark report: per-layer forward and backward times, the
// other parts of a step, their sum against the measured step, the data wait and the throughput.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace runner {

std::string bench_table(const nlohmann::json& report);

}  // namespace runner
