// The report's `curves`: the training loss and learning rate at each log point and the test
// and validation loss and accuracy after each epoch, for loss-vs-step and accuracy-vs-epoch plots.
#pragma once

#include <nlohmann/json.hpp>

#include "runner/train/trainer.h"

namespace runner {

// {"train": [{step, epoch, loss, lr}...], "test": [{step, epoch, loss, accuracy}...]}, and
// "validation" as "test" when the run has a validation set.
nlohmann::json curves_json(const TrainingOutcome& outcome);

}  // namespace runner
