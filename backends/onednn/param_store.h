// Parameters of a compiled program: one master copy per parameter in the layout the training
// forward pass chose, its gradient and optimizer state in that same layout, and mirrors in
// other layouts (refreshed by reorder steps) for primitives that want another one.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.h"
#include "backends/onednn/step_list.h"

namespace runner::onednn {

struct Parameter {
  ParamSpec spec;
  dnnl::memory::desc plain;         // PyTorch's layout: oihw (goihw when grouped), oi or x
  dnnl::memory value;               // master copy
  dnnl::memory gradient;            // same layout as value
  std::vector<dnnl::memory> state;  // optimizer buffers, same layout as value
  // Copies in other layouts or types, each refreshed by a step of one net's refresh list.
  std::vector<std::pair<const StepList*, dnnl::memory>> mirrors;
};

class ParamStore {
 public:
  explicit ParamStore(dnnl::engine engine) : engine_(std::move(engine)) {}

  // The parameter's values in layout `md`. The first request fixes the master layout (plain
  // when it asks for bf16: masters are FP32); later requests for another layout or type get a
  // mirror refreshed by a reorder appended to `refresh` (once per step, before the forward pass).
  dnnl::memory value(const ParamSpec& spec, const dnnl::memory::desc& md, StepList& refresh);
  // A memory in layout `md` where a backward primitive writes the gradient; when `md` is not
  // the master layout, a reorder into the master gradient is appended to `steps`.
  dnnl::memory gradient(const std::string& name, const dnnl::memory::desc& md, StepList& steps);

  // Forgets every mirror, before the nets whose refresh lists update them are made again.
  void drop_mirrors();
  // Forgets the mirrors that `refresh` updates, before that list is destroyed (a later list at
  // its address must not find them).
  void drop_mirrors(const StepList& refresh);

  // Allocates `count` zeroed optimizer buffers per trainable parameter (none for buffers).
  void allocate_state(int count);

  std::vector<Parameter>& parameters() { return parameters_; }
  const std::vector<Parameter>& parameters() const { return parameters_; }

  // Copies between a buffer in the master layout and plain host values.
  HostTensor download(const Parameter& p, const dnnl::memory& buffer,
                      const std::string& name) const;
  void upload(const Parameter& p, const dnnl::memory& buffer, const HostTensor& tensor) const;

 private:
  Parameter& find(const std::string& name);
  dnnl::engine engine_;
  std::vector<Parameter> parameters_;
};

// The plain (PyTorch) layout for dims of rank 1, 2, 4 or 5 (a grouped conv's goihw).
dnnl::memory::desc plain_desc(const dnnl::memory::dims& dims,
                              dnnl::memory::data_type type = dnnl::memory::data_type::f32);

}  // namespace runner::onednn
