// Throughput measurement (sweeps' `mode: benchmark`, `runner bench`): warm-up steps, then timed
// training steps without evaluation, optionally interleaved with per-step profiled steps.
#pragma once

#include <vector>

#include "backends/backend.h"
#include "runner/config/experiment.h"
#include "runner/data/dataset.h"
#include "runner/train/step_threads.h"
#include "runner/train/trainer.h"
#include "runner/util/console.h"

namespace runner {

struct BenchmarkSpec {
  int warmup_steps = 10;  // run first, never timed (first-touch, caches, lazy initialisation)
  int steps = 100;        // timed with the plain train_step
  int profile_steps = 0;  // timed per step with profile_train_step, one after each timed step
};

// The label of the loader's share in a profile (the program's own labels follow it).
inline constexpr const char* kDataWaitLabel = "data wait";

struct BenchmarkOutcome {
  // status (completed | diverged | interrupted), steps, and the timed steps' figures: step times,
  // images per second, data wait, CPU time; no epochs or evaluation.
  TrainingOutcome run;
  double mean_loss = 0;  // over the timed and profiled steps: equal for equal seeds on the CPU
  // Per label, the median over the profiled steps of its seconds per step, data wait first.
  std::vector<StepTiming> profile;
};

// Trains on full batches of `train` (epochs repeat as needed). A training set smaller than one
// batch is a UserError.
// `threads`, when given, may change the program's compute threads before a step.
BenchmarkOutcome run_benchmark(const Experiment& experiment, Program& program, const Dataset& train,
                               const BenchmarkSpec& spec, Console& console,
                               StepThreads* threads = nullptr);

}  // namespace runner
