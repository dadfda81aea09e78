// The estimate assumes the points left take the mean time of those finished, `jobs` at a time.
#include "runner/sweep/jobs_progress.h"

#include <fmt/format.h>

#include <cmath>

namespace runner {

void JobsProgress::finished(double seconds, bool ran) {
  ++finished_;
  if (!ran) return;
  ++timed_;
  seconds_ += seconds;
}

std::string JobsProgress::line(const std::vector<std::string>& running) const {
  std::string text =
      fmt::format("[{}/{} finished] running: {}", finished_, total_, fmt::join(running, ", "));
  if (timed_ == 0 || finished_ >= total_) return text;
  const double mean = seconds_ / static_cast<double>(timed_);
  const double rounds = std::ceil(static_cast<double>(total_ - finished_) / std::max(1, jobs_));
  return text + fmt::format("; about {} left", short_duration(mean * rounds));
}

std::string short_duration(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

}  // namespace runner
