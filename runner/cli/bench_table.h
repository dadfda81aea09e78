// The `caffe time`-like table of a benchmark report: per-layer forward and backward times, the
// other parts of a step, their sum against the measured step, the data wait and the throughput.
#pragma once

#include <string>

#include "runner/report/run_record.h"

namespace runner {

std::string bench_table(const RunRecord& report);

}  // namespace runner
