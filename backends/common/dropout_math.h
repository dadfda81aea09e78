// Dropout's mask, once for the CPU backend, the GPU kernel and the tests' reference: whether a
// value is kept is a hash of (seed, optimizer step, layer, the value's index in the batch in
// PyTorch's layout: NCHW, (N, T, C) for tokens), so the backends draw the same masks, in any
// order, on any thread. drop_path draws one per image, from the image's index in the batch.
#pragma once

#include <cstdint>

#include "runner/util/host_device.h"

namespace runner::dropout_math {

// The key of one layer at one step; `layer` is layer_key(name).
RUNNER_HOST_DEVICE inline std::uint64_t step_key(std::uint64_t seed, std::uint64_t step,
                                                 std::uint64_t layer) {
  return mix64(mix64(seed + 0x9e3779b97f4a7c15ull) ^ mix64(step * 0x9e3779b97f4a7c15ull + layer));
}

// Whether value `index` is kept, with probability 1 - p: a uniform in [0, 1) from 24 bits.
RUNNER_HOST_DEVICE inline bool keeps(std::uint64_t key, std::uint64_t index, float p) {
  const std::uint64_t bits = mix64(key ^ mix64(index + 0x632be59bd9b4e019ull)) >> 40;
  return static_cast<float>(bits) * (1.0f / 16777216.0f) >= p;
}

// drop_path's factor for image `image` of the batch: 0 with probability p, else 1 / (1 - p).
RUNNER_HOST_DEVICE inline float drop_path_factor(std::uint64_t key, std::uint64_t image, float p) {
  return keeps(key, image, p) ? 1.f / (1.f - p) : 0.f;
}

// FNV-1a of a layer's name: its masks do not change when other layers are added before it.
inline std::uint64_t layer_key(const char* name) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (; *name; ++name) h = (h ^ static_cast<unsigned char>(*name)) * 0x100000001b3ull;
  return h;
}

}  // namespace runner::dropout_math
