// Mixup and cutmix of one training batch (timm's Mixup in its default 'batch' mode), once, for
// the CPU program, the GPU load kernel (backends/cudnn/kernels.cu) and the loss of both: image n
// is mixed with image count - 1 - n (the batch reversed, timm's x.flip(0)) after normalisation,
// and its target is lam x its own label's + (1 - lam) x the partner's, each label smoothed as
// the loss smooths it (timm's mixup_target with SoftTargetCrossEntropy).
#pragma once

#include "runner/util/host_device.h"

namespace runner::batch_mix {

// What one step mixes: plain data, copied to the device with the batch.
struct BatchMix {
  float lam = 1;  // the weight of each image's own label; 1: no mixing
  int cut = 0;    // 1: cutmix (the box comes from the partner), 0: mixup (a blend)
  // cutmix's box in pixels: rows [top, bottom), columns [left, right).
  int top = 0, bottom = 0, left = 0, right = 0;
};

RUNNER_HOST_DEVICE inline bool active(const BatchMix& mix) {
  return mix.lam != 1.f;
}

// The image image n is mixed with in a batch of `count`.
RUNNER_HOST_DEVICE inline int partner(int n, int count) {
  return count - 1 - n;
}

// The mixed value at pixel (y, x) of an image whose own normalised value is `own` and whose
// partner's is `other`: both in FP32 and rounded once by the caller, on every device.
RUNNER_HOST_DEVICE inline float mixed_value(const BatchMix& mix, int y, int x, float own,
                                            float other) {
  if (mix.cut) {
    const bool inside = y >= mix.top && y < mix.bottom && x >= mix.left && x < mix.right;
    return inside ? other : own;
  }
  return mix.lam * own + (1.f - mix.lam) * other;
}

}  // namespace runner::batch_mix
