// Recording the values of an inference net, then placing them in one arena.
#include "backends/onednn/activation_pool.h"

#include <algorithm>
#include <stdexcept>

#include "backends/onednn/arena_layout.h"

namespace runner::onednn {

dnnl::memory ActivationPool::allocate(const dnnl::memory::desc& md, int layer) {
  const std::size_t size = arena_aligned(md.get_size());
  if (!planned_) {
    values_.push_back({size, layer, layer, 0, arena_bytes(size, engine_)});
    return dnnl::memory(md, engine_, values_.back().own.get_data_handle());
  }
  if (next_ >= values_.size() || values_[next_].size != size || values_[next_].first != layer) {
    throw std::logic_error("an inference net asked for other activations than when recorded");
  }
  char* arena = static_cast<char*>(arena_.get_data_handle());
  return dnnl::memory(md, engine_, arena + values_[next_++].offset);
}

void ActivationPool::read_until(const dnnl::memory& memory, int last_reader) {
  if (planned_) return;
  const auto* address = static_cast<const char*>(memory.get_data_handle());
  for (Value& value : values_) {
    const auto* begin = static_cast<const char*>(value.own.get_data_handle());
    if (address >= begin && address < begin + value.size) {
      value.last = std::max(value.last, last_reader);
    }
  }
}

void ActivationPool::plan() {
  std::vector<ArenaValue> lives;
  for (const Value& value : values_) lives.push_back({value.size, value.first, value.last});
  const ArenaLayout layout = lay_out_arena(lives);
  for (std::size_t v = 0; v < values_.size(); ++v) {
    values_[v].offset = layout.offsets[v];
    values_[v].own = dnnl::memory();  // the recording build's bytes, never touched
  }
  arena_ = arena_bytes(layout.size, engine_);
  planned_ = true;
}

std::size_t ActivationPool::bytes() const {
  if (planned_) return arena_.get_desc().get_size();
  std::size_t sum = 0;
  for (const Value& value : values_) sum += value.size;
  return sum;
}

}  // namespace runner::onednn
