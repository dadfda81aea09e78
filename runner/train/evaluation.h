// Evaluation of a test or validation set through a program: its counts (runner/metrics), from
// the logits.
#pragma once

#include "backends/backend.h"
#include "runner/data/dataset.h"
#include "runner/metrics/evaluation.h"

namespace runner {

// Runs the whole dataset through predict() in batches of up to `batch`.
Evaluation evaluate(Program& program, const Dataset& data, int batch);

}  // namespace runner
