// Which mixup or cutmix each training step applies (training.mixup, training.cutmix,
// training.mix): timm's Mixup._params_per_batch and its cutmix box (rand_bbox with the area
// correction), with the run's own seeded draws: one counter-based stream per (seed, step), so
// a resumed run and every backend mix the same step alike.
#pragma once

#include <cstdint>

#include "backends/common/batch_mix.h"
#include "runner/config/experiment.h"

namespace runner {

class DrawStream;

class BatchMixer {
 public:
  // Batches of (height, width) images.
  BatchMixer(const MixingSpec& spec, std::uint64_t seed, int height, int width);
  // The mix of the run's step `step` (0-based, resumed steps included).
  batch_mix::BatchMix choose(std::int64_t step) const;

 private:
  MixingSpec spec_;
  std::uint64_t seed_;
  int height_, width_;
};

// A draw of Beta(alpha, alpha) from `draws` (two gamma draws, Marsaglia and Tsang's method).
double symmetric_beta(double alpha, DrawStream& draws);

}  // namespace runner
