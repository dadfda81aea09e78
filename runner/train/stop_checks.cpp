// Early stops: interrupted, diverged.
#include "runner/train/stop_checks.h"

#include <fmt/format.h>

#include <cmath>

#include "runner/util/interrupt.h"

namespace runner {

bool stop_if_interrupted(TrainingOutcome& outcome, std::string_view where) {
  if (!interrupt_requested()) return false;
  outcome.status = RunStatus::interrupted;
  outcome.error = fmt::format("interrupted {}", where);
  return true;
}

bool stop_if_diverged(TrainingOutcome& outcome, double mean_loss, std::string_view where) {
  if (outcome.status != RunStatus::completed || std::isfinite(mean_loss)) return false;
  outcome.status = RunStatus::diverged;
  outcome.error = fmt::format("the loss diverged ({}) {}", mean_loss, where);
  return true;
}

}  // namespace runner
