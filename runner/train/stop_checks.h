// Why a training or benchmark loop stops early, shared by both: Ctrl-C, or a loss that is no
// longer finite (NaN/Inf) or above the divergence threshold: the run diverged.
#pragma once

#include <string_view>

#include "runner/config/experiment.h"
#include "runner/train/trainer.h"

namespace runner {

// When Ctrl-C was pressed: marks `outcome` interrupted "interrupted <where>" and returns true.
bool stop_if_interrupted(TrainingOutcome& outcome, std::string_view where);

// The mean loss above which a run diverged: training.divergence_threshold, else 1,000 times the
// cross-entropy of a uniform guess over `classes` (ln(classes)): far above any real loss, far below
// the 1e18-1e25 a run at a learning rate of 50 reaches before its first NaN.
double divergence_threshold(const TrainingSpec& training, int classes);

// When `mean_loss` is not finite or above `threshold` and `outcome` is still completed: marks
// it diverged with "the loss diverged (<loss>) <where>" and returns true.
bool stop_if_diverged(TrainingOutcome& outcome, double mean_loss, double threshold,
                      std::string_view where);

}  // namespace runner
