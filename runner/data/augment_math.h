// Training-set augmentation (dataset.augment), once, for the host loader (augment.cpp) and the
// GPU gather kernel (backends/cudnn/kernels.cu): a counter-based draw per (seed, epoch, image,
// step), so an image's crop and flips do not depend on which thread or device gathers it.
#pragma once

#include <cstdint>

#include "runner/util/host_device.h"

namespace runner::augment_math {

enum class StepKind : int { random_crop, horizontal_flip, vertical_flip };

// One step; a crop's output is the image's own size (torchvision's RandomCrop(size = image size,
// padding), zeros around), so the steps only move pixels.
struct Step {
  StepKind kind = StepKind::random_crop;
  int padding = 0;  // random_crop: zero bytes added on each side before cropping
  double p = 0.5;   // horizontal_flip, vertical_flip: probability of flipping
};

// The steps of a run, in order, plain data so it can be a kernel argument.
inline constexpr int kMaxSteps = 8;
struct Plan {
  std::uint64_t seed = 0;
  int count = 0;  // 0: no augmentation
  Step steps[kMaxSteps];
};

// 64 random bits for step `step` of image `index` in `epoch`: a pure function of the four, so
// workers, devices and a resumed run draw the same.
RUNNER_HOST_DEVICE inline std::uint64_t draw(std::uint64_t seed, std::int64_t epoch,
                                             std::uint64_t index, int step) {
  std::uint64_t h = mix64(seed + 0x9E3779B97F4A7C15ull);
  h = mix64(h ^ (static_cast<std::uint64_t>(epoch) * 0xD1B54A32D192ED03ull));
  h = mix64(h ^ (index * 0xA0761D6478BD642Full + 0xE7037ED1A0B428DBull));
  return mix64(h ^ (static_cast<std::uint64_t>(step + 1) * 0x8EBC6AF09C88C6E3ull));
}

// An integer in [0, n) from 32 random bits (multiply-shift: bias below n / 2^32, negligible for
// image sides).
RUNNER_HOST_DEVICE inline int below(std::uint32_t bits, int n) {
  return static_cast<int>((static_cast<std::uint64_t>(bits) * static_cast<std::uint64_t>(n)) >> 32);
}

// What a step decided for one image: a crop's offset into the padded image, or a flip.
struct Choice {
  int top = 0, left = 0;  // random_crop: in [0, 2 * padding]
  bool flip = false;      // horizontal_flip, vertical_flip
};
struct Choices {
  int count = 0;
  Choice steps[kMaxSteps];
};

// One step's decision from its 64 random bits.
RUNNER_HOST_DEVICE inline Choice choose_step(const Step& step, std::uint64_t bits) {
  Choice out;
  if (step.kind == StepKind::random_crop) {
    const int offsets = 2 * step.padding + 1;
    out.top = below(static_cast<std::uint32_t>(bits >> 32), offsets);
    out.left = below(static_cast<std::uint32_t>(bits), offsets);
  } else {
    // 53 bits as a double in [0, 1), exact on host and device: p = 0 never flips, 1 always.
    out.flip = static_cast<double>(bits >> 11) * 0x1.0p-53 < step.p;
  }
  return out;
}

RUNNER_HOST_DEVICE inline Choices choose(const Plan& plan, std::int64_t epoch,
                                         std::uint64_t index) {
  Choices out;
  out.count = plan.count;
  for (int k = 0; k < plan.count; ++k) {
    out.steps[k] = choose_step(plan.steps[k], draw(plan.seed, epoch, index, k));
  }
  return out;
}

// Where output pixel (y, x) of the augmented (height, width) image comes from in the original:
// true with (y, x) moved there, false when it is padding (a zero byte). Walks the steps from
// the last back to the first, each mapping its output position to its input position.
RUNNER_HOST_DEVICE inline bool source_pixel(const Plan& plan, const Choices& choices, int height,
                                            int width, int& y, int& x) {
  for (int k = choices.count - 1; k >= 0; --k) {
    const Step& step = plan.steps[k];
    if (step.kind == StepKind::random_crop) {
      y += choices.steps[k].top - step.padding;
      x += choices.steps[k].left - step.padding;
      if (y < 0 || y >= height || x < 0 || x >= width) return false;
    } else if (choices.steps[k].flip) {
      if (step.kind == StepKind::vertical_flip) {
        y = height - 1 - y;
      } else {
        x = width - 1 - x;
      }
    }
  }
  return true;
}

}  // namespace runner::augment_math
