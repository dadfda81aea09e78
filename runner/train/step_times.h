// The spread of per-step times: median, 10th and 90th percentile, mean.
#pragma once

#include <cstddef>
#include <vector>

namespace runner {

struct StepTimeSummary {
  std::size_t count = 0;
  double median = 0, p10 = 0, p90 = 0, mean = 0;  // seconds
};

// Percentiles by linear interpolation between the closest ranks (numpy's default); all zero
// when there are no steps.
StepTimeSummary summarize_step_times(std::vector<double> seconds);

// The q-quantile (0 <= q <= 1) of sorted values; 0 for none.
double quantile_of_sorted(const std::vector<double>& sorted, double q);

}  // namespace runner
