// Layout helpers for layer builders and the registry of oneDNN layer implementations.
#include "backends/onednn/build_context.h"

#include <map>

#include "runner/util/errors.h"

namespace runner::onednn {

dnnl::memory BuildContext::in_layout(const dnnl::memory& from, const dnnl::memory::desc& want,
                                     StepList& steps, const std::string& label) const {
  if (from.get_desc() == want) return from;
  dnnl::memory to = allocate(want);
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

dnnl::memory::desc BuildContext::activation_desc(const dnnl::memory::dims& dims) {
  if (dims.size() == 4 && dims[1] % 16 != 0) return dnnl::memory::desc(dims, dt::f32, tag::acdb);
  return any(dims);
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
