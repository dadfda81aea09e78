// Layout helpers for layer builders and the registry of oneDNN layer implementations.
#include "backends/onednn/build_context.h"

#include <algorithm>
#include <map>

#include "runner/util/errors.h"

namespace runner::onednn {

std::vector<std::vector<dnnl_dim_t>> element_offsets(const dnnl::memory::desc& desc) {
  const dnnl_memory_desc_t& md = desc.data;
  const auto& blocking = md.format_desc.blocking;
  if (md.format_kind != dnnl_blocked || md.offset0 != 0 || md.extra.flags != 0) return {};
  std::vector<std::vector<dnnl_dim_t>> offsets(md.ndims);
  for (int d = 0; d < md.ndims; ++d) {
    if (md.padded_dims[d] != md.dims[d]) return {};
    dnnl_dim_t block = 1, inner_stride = 0;
    for (int k = 0; k < blocking.inner_nblks; ++k) {
      if (blocking.inner_idxs[k] != d) continue;
      if (block != 1) return {};
      block = blocking.inner_blks[k];
      inner_stride = 1;
      for (int j = k + 1; j < blocking.inner_nblks; ++j) inner_stride *= blocking.inner_blks[j];
    }
    for (dnnl_dim_t i = 0; i < md.dims[d]; ++i) {
      offsets[d].push_back(i / block * blocking.strides[d] + i % block * inner_stride);
    }
  }
  return offsets;
}

namespace {

bool same_bytes(const dnnl::memory::desc& a, const dnnl::memory::desc& b) {
  if (a.data_type() != b.data_type() || a.dims() != b.dims()) return false;
  const auto offsets = element_offsets(a);
  return !offsets.empty() && offsets == element_offsets(b);
}

}  // namespace

dnnl::memory StepScratch::request(const dnnl::memory::desc& md, const dnnl::engine& engine) {
  requests_.emplace_back(md, engine, nullptr);  // no bytes until bind()
  return requests_.back();
}

void StepScratch::bind(const dnnl::engine& engine) {
  std::size_t bytes = 0;
  for (const dnnl::memory& m : requests_) bytes = std::max(bytes, m.get_desc().get_size());
  if (bytes == 0) return;
  const auto size = static_cast<dnnl::memory::dim>(bytes);
  buffer_ = dnnl::memory(dnnl::memory::desc({size}, dt::u8, tag::a), engine);
  for (dnnl::memory& m : requests_) m.set_data_handle(buffer_.get_data_handle());
}

dnnl::memory BuildContext::view_as(const dnnl::memory& from, const dnnl::memory::desc& want) const {
  if (from.get_desc() == want) return from;
  if (same_bytes(from.get_desc(), want)) return dnnl::memory(want, engine, from.get_data_handle());
  return {};
}

dnnl::memory BuildContext::blocked_view(const dnnl::memory& from) const {
  const auto dims = from.get_desc().dims();
  if (dims.size() != 4) return from;
  dnnl::memory view =
      view_as(from, dnnl::memory::desc(dims, from.get_desc().data_type(), tag::aBcd16b));
  return view ? view : from;
}

dnnl::memory BuildContext::in_layout(const dnnl::memory& from, const dnnl::memory::desc& want,
                                     StepList& steps, const std::string& label) const {
  if (dnnl::memory view = view_as(from, want)) return view;
  dnnl::memory to = &steps == forward ? allocate_activation(want) : allocate(want);
  copy(from, to, steps, label);
  return to;
}

void BuildContext::copy(const dnnl::memory& from, const dnnl::memory& to, StepList& steps,
                        const std::string& label) const {
  steps.add(label, dnnl::reorder(from, to), {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}});
}

dnnl::memory::dims BuildContext::dims_of(const Shape& shape) const {
  if (shape.flat) return {batch, shape.c};
  return {batch, shape.c, shape.h, shape.w};
}

dnnl::memory::desc BuildContext::activation_desc(const dnnl::memory::dims& dims) const {
  if (dims.size() == 4 && dims[1] % 16 != 0) return dnnl::memory::desc(dims, data, tag::acdb);
  return data_any(dims);
}

dnnl::primitive_attr BuildContext::output_attr() const {
  dnnl::primitive_attr attr;
  if (fuse_relu) {
    dnnl::post_ops ops;
    ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
    attr.set_post_ops(ops);
  }
  return attr;
}

dnnl::eltwise_forward::primitive_desc BuildContext::relu_in_place(const dnnl::memory& data,
                                                                  const std::string& label) const {
  dnnl::eltwise_forward::desc desc(forward_kind(), dnnl::algorithm::eltwise_relu_use_dst_for_bwd,
                                   data.get_desc(), 0.f, 0.f);
  dnnl::eltwise_forward::primitive_desc pd(desc, engine);
  forward->add(label, dnnl::eltwise_forward(pd), {{DNNL_ARG_SRC, data}, {DNNL_ARG_DST, data}});
  return pd;
}

void BuildContext::relu_backward_in_place(const dnnl::eltwise_forward::primitive_desc& forward_pd,
                                          const dnnl::memory& data, const dnnl::memory& grad,
                                          const std::string& label) const {
  dnnl::eltwise_backward::desc desc(dnnl::algorithm::eltwise_relu_use_dst_for_bwd, grad.get_desc(),
                                    data.get_desc(), 0.f, 0.f);
  dnnl::eltwise_backward::primitive_desc pd(desc, engine, forward_pd);
  backward->add(label, dnnl::eltwise_backward(pd),
                {{DNNL_ARG_DST, data}, {DNNL_ARG_DIFF_DST, grad}, {DNNL_ARG_DIFF_SRC, grad}});
}

bool is_reference(const dnnl::primitive_desc_base& pd) {
  return std::string(pd.impl_info_str()).find("ref") != std::string::npos;
}

bool is_native_bf16(const dnnl::primitive_desc_base& pd) {
  const std::string impl = pd.impl_info_str();
  return impl.find("bf16") != std::string::npos || impl.find("amx") != std::string::npos;
}

#define RUNNER_REGISTRY_ENTRY(name) RUNNER_ONEDNN_LAYER(name);
#include "backends/onednn/layers.inc"
#undef RUNNER_REGISTRY_ENTRY

const LayerFactories<OnednnLayer>& layer_factories() {
  static const LayerFactories<OnednnLayer> factories("oneDNN", {
#define RUNNER_REGISTRY_ENTRY(name) {#name, make_layer_##name},
#include "backends/onednn/layers.inc"
#undef RUNNER_REGISTRY_ENTRY
                                                               });
  return factories;
}

}  // namespace runner::onednn
