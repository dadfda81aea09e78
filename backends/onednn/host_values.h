// Host steps' access to the values of a CPU memory, whose element type (f32, or bf16 under mixed
// precision) is known only when the net is built.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include "backends/common/bf16.h"

namespace runner::onednn {

// The memory's elements as T (float or Bf16); null for an empty memory.
template <typename T>
T* values_of(const dnnl::memory& m) {
  return m ? static_cast<T*>(m.get_data_handle()) : nullptr;
}

// Calls f(T{}) with the element type of `m` (f32 or bf16).
template <typename F>
void with_type(const dnnl::memory& m, F f) {
  if (m.get_desc().data_type() == dnnl::memory::data_type::bf16) return f(Bf16{});
  f(float{});
}

}  // namespace runner::onednn
