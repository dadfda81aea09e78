// How long a training step takes in each precision, timed on throwaway programs compiled as the
// run's is: bf16 is not faster everywhere (oneDNN 2.6 emulates it on AVX-512 cores without
// AVX512-BF16, and some layers run slower in it even where it is native), and a run in bf16 that
// is slower than fp32 on this machine is told so before it trains (issue 40).
#pragma once

#include <string>
#include <vector>

#include "backends/backend.h"

namespace runner {

// Timed steps per precision for `precision: fastest` (after a warm-up step), more than the
// warning's 3: the choice is kept for the whole run.
inline constexpr int kFastestTimedSteps = 5;

struct PrecisionStepTime {
  Precision precision = Precision::fp32;
  double median_seconds = 0;  // of the timed steps, after one warm-up step
};

// Compiles `graph` with `options` in each of `precisions` in turn and times `steps` training
// steps of a batch of grey images (each program freed before the next is compiled).
std::vector<PrecisionStepTime> time_training_steps(Backend& backend, const Graph& graph,
                                                   CompileOptions options,
                                                   const std::vector<Precision>& precisions,
                                                   int steps = 3);

// What `training.precision: fastest` chose, and the step times it chose by (none when it was
// given: `reproduce` reruns the original's choice).
struct PrecisionChoice {
  Precision chosen = Precision::fp32;
  std::vector<PrecisionStepTime> times;
  bool replayed = false;
};

// The precisions `fastest` times on `device`: fp32 and those the device runs natively, fp16 left
// out (its loss scaling changes the training, not only its speed).
std::vector<Precision> fastest_candidates(const DeviceInfo& device);

// The precision of the shortest step in `times` (fp32 on a tie: the reference arithmetic).
Precision fastest_of(const std::vector<PrecisionStepTime>& times);

// "precision: fastest -> bf16 (a training step: bf16 0.4 ms, fp32 0.6 ms)".
std::string precision_choice_line(const PrecisionChoice& choice);

// "warning: training.precision bf16 is slower than fp32 on this cpu: ..." when `asked` is measured
// slower than fp32 in `times`, else "".
std::string slower_precision_warning(Precision asked, const std::vector<PrecisionStepTime>& times,
                                     const std::string& device);

}  // namespace runner
