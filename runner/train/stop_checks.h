// Why a training or benchmark loop stops early, shared by both: Ctrl-C, or a loss that is no
// longer finite (NaN/Inf: the run diverged).
#pragma once

#include <string_view>

#include "runner/train/trainer.h"

namespace runner {

// When Ctrl-C was pressed: marks `outcome` interrupted "interrupted <where>" and returns true.
bool stop_if_interrupted(TrainingOutcome& outcome, std::string_view where);

// When `mean_loss` is not finite and `outcome` is still completed: marks it diverged with
// "the loss diverged (<loss>) <where>" and returns true.
bool stop_if_diverged(TrainingOutcome& outcome, double mean_loss, std::string_view where);

}  // namespace runner
