// What code compiled for both the host and a CUDA device shares: the RUNNER_HOST_DEVICE marker
// (empty in plain C++) and SplitMix64's finaliser, the counter-based hash behind augmentation
// draws and dropout masks.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define RUNNER_HOST_DEVICE __host__ __device__
#else
#define RUNNER_HOST_DEVICE
#endif

namespace runner {

// A bijection of 64-bit words that mixes every input bit into every output bit.
RUNNER_HOST_DEVICE inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace runner
