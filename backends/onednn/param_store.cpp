// Parameter storage in the layouts oneDNN chose, with plain-layout upload and download.
#include "backends/onednn/param_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "backends/common/checkpoint_tensors.h"
#include "runner/util/errors.h"

namespace runner::onednn {

dnnl::memory::desc plain_desc(const dnnl::memory::dims& dims, dnnl::memory::data_type type) {
  using tag = dnnl::memory::format_tag;
  static const tag tags[] = {tag::undef, tag::a, tag::ab, tag::abc, tag::abcd, tag::abcde};
  return dnnl::memory::desc(dims, type, tags[dims.size()]);
}

namespace {

void zero(const dnnl::memory& m) {
  std::memset(m.get_data_handle(), 0, m.get_desc().get_size());
}

void copy_layout(const dnnl::engine& engine, const dnnl::memory& from, const dnnl::memory& to) {
  dnnl::stream stream(engine);
  dnnl::reorder(from, to).execute(stream, const_cast<dnnl::memory&>(from),
                                  const_cast<dnnl::memory&>(to));
  stream.wait();
}

}  // namespace

Parameter& ParamStore::find(const std::string& name) {
  auto it = std::find_if(parameters_.begin(), parameters_.end(),
                         [&](const Parameter& p) { return p.spec.name == name; });
  if (it == parameters_.end()) throw std::logic_error("unknown parameter " + name);
  return *it;
}

dnnl::memory ParamStore::value(const ParamSpec& spec, const dnnl::memory::desc& md,
                               StepList& refresh) {
  auto it = std::find_if(parameters_.begin(), parameters_.end(),
                         [&](const Parameter& p) { return p.spec.name == spec.name; });
  if (it == parameters_.end()) {
    Parameter p;
    p.spec = spec;
    p.plain = plain_desc(md.dims());  // a grouped conv's 5-D weights: goihw
    // Masters are FP32: a first request in bf16 makes a plain master and a bf16 mirror.
    const bool master = md.data_type() == dnnl::memory::data_type::f32;
    p.value = dnnl::memory(master ? md : p.plain, engine_);
    p.gradient = dnnl::memory(master ? md : p.plain, engine_);
    zero(p.value);  // blocked layouts pad; padding must stay zero
    zero(p.gradient);
    parameters_.push_back(std::move(p));
    if (master) return parameters_.back().value;
    it = std::prev(parameters_.end());
  }
  if (it->value.get_desc() == md) return it->value;
  for (const auto& [list, mirror] : it->mirrors) {  // one conversion per layout and step list
    if (list == &refresh && mirror.get_desc() == md) return mirror;
  }
  dnnl::memory mirror(md, engine_);
  refresh.add(spec.name + " layout", dnnl::reorder(it->value, mirror),
              {{DNNL_ARG_FROM, it->value}, {DNNL_ARG_TO, mirror}});
  it->mirrors.emplace_back(&refresh, mirror);
  return mirror;
}

dnnl::memory ParamStore::gradient(const std::string& name, const dnnl::memory::desc& md,
                                  StepList& steps) {
  Parameter& p = find(name);
  if (p.gradient.get_desc() == md) return p.gradient;
  dnnl::memory staging(md, engine_);
  steps.add(name + " grad layout", dnnl::reorder(staging, p.gradient),
            {{DNNL_ARG_FROM, staging}, {DNNL_ARG_TO, p.gradient}});
  return staging;
}

void ParamStore::drop_mirrors() {
  for (Parameter& p : parameters_) p.mirrors.clear();
}

void ParamStore::drop_mirrors(const StepList& refresh) {
  for (Parameter& p : parameters_) {
    std::erase_if(p.mirrors, [&](const auto& mirror) { return mirror.first == &refresh; });
  }
}

void ParamStore::allocate_state(int count) {
  for (Parameter& p : parameters_) {
    p.state.clear();
    if (!p.spec.trainable) continue;  // a buffer: the optimizer never touches it
    for (int i = 0; i < count; ++i) {
      p.state.emplace_back(p.value.get_desc(), engine_);
      zero(p.state.back());
    }
  }
}

HostTensor ParamStore::download(const Parameter& p, const dnnl::memory& buffer,
                                const std::string& name) const {
  HostTensor tensor{name, p.spec.dims, std::vector<float>(p.spec.elements())};
  dnnl::memory plain(p.plain, engine_, tensor.values.data());
  copy_layout(engine_, buffer, plain);
  return tensor;
}

void ParamStore::upload(const Parameter& p, const dnnl::memory& buffer,
                        const HostTensor& tensor) const {
  require_shape(tensor, p.spec.dims);
  dnnl::memory plain(p.plain, engine_, const_cast<float*>(tensor.values.data()));
  copy_layout(engine_, plain, buffer);
}

}  // namespace runner::onednn
