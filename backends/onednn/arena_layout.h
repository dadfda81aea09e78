// Places values that are not all live at once in one block of memory: each value gets an offset
// such that no two values live at the same time overlap. Used for the inference net's activations
// and the training net's activation gradients.
#pragma once

#include <cstddef>
#include <oneapi/dnnl/dnnl.hpp>
#include <vector>

namespace runner::onednn {

// A value's bytes and its life: from the event (layer, step) that first writes it to the one that
// last reads it, both included.
struct ArenaValue {
  std::size_t size = 0;
  int first = 0, last = 0;
};

struct ArenaLayout {
  std::vector<std::size_t> offsets;  // per value, 64-byte aligned
  std::size_t size = 0;              // the block's bytes
};

// The largest value first, each at the lowest offset that no value live at the same time holds
// (the greedy-by-size placement of TFLite's arena planner).
ArenaLayout lay_out_arena(const std::vector<ArenaValue>& values);

// `size` rounded up to the arena's alignment.
std::size_t arena_aligned(std::size_t size);

// `size` bytes of memory on `engine` (at least one).
dnnl::memory arena_bytes(std::size_t size, const dnnl::engine& engine);

}  // namespace runner::onednn
