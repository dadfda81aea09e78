// The report's `curves`: the training loss and learning rate at each log point and the test
// and validation loss and accuracy after each epoch, for loss-vs-step and accuracy-vs-epoch plots.
#pragma once

#include "runner/report/run_record.h"
#include "runner/train/trainer.h"

namespace runner {

// {"train": [{step, epoch, loss, lr}...], "test": [{step, epoch, loss, accuracy}...]}, and
// "validation" as "test" when the run has a validation set.
RecordCurves curves_record(const TrainingOutcome& outcome);

}  // namespace runner
