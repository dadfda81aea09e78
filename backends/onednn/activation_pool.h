// Memory for the activations of an inference net, shared by values that are never live at once:
// an evaluation forward pass then holds about the peak of its live values, as PyTorch under
// torch.no_grad() does, instead of every layer's output for the whole evaluation batch (a
// MobileNetV2 at batch 1000: 19 GB). The net is built twice: the first build records each
// value's size and the layers that write and read it (in buffers of its own, never touched);
// plan() then places every value in one arena, the largest first, each at the lowest offset
// that no value live at the same time holds; the second build, which asks for the same values
// in the same order, gets those places.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>
#include <vector>

namespace runner::onednn {

class ActivationPool {
 public:
  explicit ActivationPool(dnnl::engine engine) : engine_(std::move(engine)) {}

  // A memory of `md` whose bytes layer `layer` (the index being built) writes in the forward
  // pass before any read, every pass.
  dnnl::memory allocate(const dnnl::memory::desc& md, int layer);
  // The value holding `memory`'s first byte (a view of it included) is read up to layer
  // `last_reader`. Memories outside the pool are ignored (the input images, parameters).
  void read_until(const dnnl::memory& memory, int last_reader);
  // Ends the recording build: lays the values out in the arena.
  void plan();

  std::size_t bytes() const;  // the arena's size (before plan(): the recorded values together)

 private:
  struct Value {
    std::size_t size = 0;
    int first = 0, last = 0;  // the layers that write it and read it last
    std::size_t offset = 0;   // in the arena
    dnnl::memory own;         // the recording build's buffer
  };
  dnnl::engine engine_;
  std::vector<Value> values_;
  bool planned_ = false;
  std::size_t next_ = 0;  // the planned build: the next value asked for
  dnnl::memory arena_;
};

}  // namespace runner::onednn
