// Early stops: interrupted, diverged.
#include "runner/train/stop_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "runner/util/interrupt.h"

namespace runner {

bool stop_if_interrupted(TrainingOutcome& outcome, std::string_view where) {
  if (!interrupt_requested()) return false;
  outcome.status = RunStatus::interrupted;
  outcome.error = fmt::format("interrupted {}", where);
  return true;
}

double divergence_threshold(const TrainingSpec& training, int classes) {
  if (training.divergence_threshold) return *training.divergence_threshold;
  return 1000.0 * std::log(static_cast<double>(std::max(2, classes)));
}

bool stop_if_diverged(TrainingOutcome& outcome, double mean_loss, double threshold,
                      std::string_view where) {
  if (outcome.status != RunStatus::completed) return false;
  if (std::isfinite(mean_loss) && mean_loss <= threshold) return false;
  outcome.status = RunStatus::diverged;
  outcome.error =
      std::isfinite(mean_loss)
          ? fmt::format("the loss diverged ({:.6g}, above training.divergence_threshold {:.6g}) {}",
                        mean_loss, threshold, where)
          : fmt::format("the loss diverged ({}) {}", mean_loss, where);
  return true;
}

}  // namespace runner
