// Recording the values of an inference net, then placing them in one arena.
#include "backends/onednn/activation_pool.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace runner::onednn {
namespace {

constexpr std::size_t kAlignment = 64;  // oneDNN's alignment for its own buffers

std::size_t aligned(std::size_t size) {
  return (size + kAlignment - 1) / kAlignment * kAlignment;
}

dnnl::memory bytes_memory(std::size_t size, const dnnl::engine& engine) {
  const dnnl::memory::desc bytes({static_cast<dnnl::memory::dim>(std::max<std::size_t>(size, 1))},
                                 dnnl::memory::data_type::u8, dnnl::memory::format_tag::a);
  return dnnl::memory(bytes, engine);
}

}  // namespace

dnnl::memory ActivationPool::allocate(const dnnl::memory::desc& md, int layer) {
  const std::size_t size = aligned(md.get_size());
  if (!planned_) {
    values_.push_back({size, layer, layer, 0, bytes_memory(size, engine_)});
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
  std::vector<std::size_t> order(values_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return values_[a].size > values_[b].size; });
  std::vector<std::size_t> placed;
  std::size_t end = 0;
  for (std::size_t v : order) {
    Value& value = values_[v];
    // The placed values live at the same time as this one, by offset: it goes in the first gap.
    std::vector<std::size_t> overlapping;
    for (std::size_t p : placed) {
      if (values_[p].first <= value.last && value.first <= values_[p].last)
        overlapping.push_back(p);
    }
    std::sort(overlapping.begin(), overlapping.end(),
              [&](std::size_t a, std::size_t b) { return values_[a].offset < values_[b].offset; });
    std::size_t offset = 0;
    for (std::size_t p : overlapping) {
      if (values_[p].offset >= offset + value.size) break;
      offset = std::max(offset, values_[p].offset + values_[p].size);
    }
    value.offset = offset;
    value.own = dnnl::memory();
    end = std::max(end, offset + value.size);
    placed.push_back(v);
  }
  arena_ = bytes_memory(end, engine_);
  planned_ = true;
}

std::size_t ActivationPool::bytes() const {
  if (planned_) return arena_.get_desc().get_size();
  std::size_t sum = 0;
  for (const Value& value : values_) sum += value.size;
  return sum;
}

}  // namespace runner::onednn
