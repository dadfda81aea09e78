// Dynamic loss scaling for fp16 mixed precision, as torch.cuda.amp.GradScaler does it (its
// defaults and _amp_update_scale_'s arithmetic): the loss gradient is multiplied by the scale so
// that small gradients survive half precision; a step with any inf or nan gradient is skipped
// and the scale halved; after growth_interval clean steps in a row the scale doubles. Plain C++
// for the GPU's kernel and the host's tests.
#pragma once

#include "runner/util/host_device.h"

namespace runner::loss_scale_math {

inline constexpr float kMaxFloat = 3.40282347e+38f;  // FLT_MAX, also in device code

struct Settings {
  float init_scale = 65536.f;  // 2^16
  float growth_factor = 2.f;
  float backoff_factor = 0.5f;
  int growth_interval = 2000;
};

struct State {
  float scale = 1.f;            // what this step's loss gradient is multiplied by
  int growth_tracker = 0;       // clean steps since the scale last changed
  long long skipped_steps = 0;  // updates skipped so far (not GradScaler's: for the report)
};

RUNNER_HOST_DEVICE inline State initial_state(const Settings& settings) {
  State s;
  s.scale = settings.init_scale;
  return s;
}

// What the gradients of a step scaled by s.scale are multiplied by before clipping and the
// update (GradScaler.unscale_: a power of two while the factors are, so exact).
RUNNER_HOST_DEVICE inline float unscale_factor(const State& s) {
  return 1.f / s.scale;
}

// After a step: `found_inf` says whether any of its gradients was inf or nan (that step's update
// is skipped). A grown scale that would overflow to inf is not taken, as in PyTorch.
RUNNER_HOST_DEVICE inline void update(State& s, bool found_inf, const Settings& settings) {
  if (found_inf) {
    s.scale *= settings.backoff_factor;
    s.growth_tracker = 0;
    ++s.skipped_steps;
    return;
  }
  const int successful = s.growth_tracker + 1;
  if (successful == settings.growth_interval) {
    const float grown = s.scale * settings.growth_factor;
    if (grown <= kMaxFloat) s.scale = grown;  // not inf (the scale is never nan)
    s.growth_tracker = 0;
  } else {
    s.growth_tracker = successful;
  }
}

}  // namespace runner::loss_scale_math
