// Greedy-by-size placement of values with lifetimes in one arena.
#include "backends/onednn/arena_layout.h"

#include <algorithm>
#include <numeric>

namespace runner::onednn {

std::size_t arena_aligned(std::size_t size) {
  constexpr std::size_t kAlignment = 64;  // oneDNN's alignment for its own buffers
  return (size + kAlignment - 1) / kAlignment * kAlignment;
}

dnnl::memory arena_bytes(std::size_t size, const dnnl::engine& engine) {
  const dnnl::memory::desc bytes({static_cast<dnnl::memory::dim>(std::max<std::size_t>(size, 1))},
                                 dnnl::memory::data_type::u8, dnnl::memory::format_tag::a);
  return dnnl::memory(bytes, engine);
}

ArenaLayout lay_out_arena(const std::vector<ArenaValue>& values) {
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return values[a].size > values[b].size; });
  ArenaLayout layout;
  layout.offsets.assign(values.size(), 0);
  std::vector<std::size_t> placed;
  for (std::size_t v : order) {
    const ArenaValue& value = values[v];
    const std::size_t size = arena_aligned(value.size);
    // The placed values live at the same time as this one, by offset: it goes in the first gap.
    std::vector<std::size_t> overlapping;
    for (std::size_t p : placed) {
      if (values[p].first <= value.last && value.first <= values[p].last) overlapping.push_back(p);
    }
    std::sort(overlapping.begin(), overlapping.end(),
              [&](std::size_t a, std::size_t b) { return layout.offsets[a] < layout.offsets[b]; });
    std::size_t offset = 0;
    for (std::size_t p : overlapping) {
      if (layout.offsets[p] >= offset + size) break;
      offset = std::max(offset, layout.offsets[p] + arena_aligned(values[p].size));
    }
    layout.offsets[v] = offset;
    layout.size = std::max(layout.size, offset + size);
    placed.push_back(v);
  }
  return layout;
}

}  // namespace runner::onednn
