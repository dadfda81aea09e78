// Step-time percentiles, and step times with the device's waits shared out.
#include "runner/train/step_times.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace runner {

double quantile_of_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0.0;
  double position = q * static_cast<double>(sorted.size() - 1);
  std::size_t below = static_cast<std::size_t>(std::floor(position));
  std::size_t above = std::min(below + 1, sorted.size() - 1);
  double fraction = position - static_cast<double>(below);
  return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

StepTimeSummary summarize_step_times(std::vector<double> seconds) {
  StepTimeSummary s;
  s.count = seconds.size();
  if (seconds.empty()) return s;
  std::sort(seconds.begin(), seconds.end());
  s.median = quantile_of_sorted(seconds, 0.5);
  s.p10 = quantile_of_sorted(seconds, 0.1);
  s.p90 = quantile_of_sorted(seconds, 0.9);
  s.mean =
      std::accumulate(seconds.begin(), seconds.end(), 0.0) / static_cast<double>(seconds.size());
  return s;
}

void StepClock::step(double seconds, bool kept) {
  if (kept) seconds_.push_back(seconds);
  ++steps_since_wait_;
  total_ += seconds;
}

void StepClock::wait(double seconds) {
  total_ += seconds;
  if (steps_since_wait_ > 0) {
    const double share = seconds / static_cast<double>(steps_since_wait_);
    for (std::size_t i = first_since_wait_; i < seconds_.size(); ++i) seconds_[i] += share;
  }
  first_since_wait_ = seconds_.size();
  steps_since_wait_ = 0;
}

}  // namespace runner
