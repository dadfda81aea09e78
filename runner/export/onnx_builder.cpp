// Writing an ONNX graph node by node (onnx_builder.h).
#include "runner/export/onnx_builder.h"

#include <fmt/format.h>

namespace runner {

OnnxBuilder::OnnxBuilder(const std::vector<std::string>& io_names,
                         const std::vector<std::string>& parameter_names)
    : names_(io_names.begin(), io_names.end()), io_names_(names_) {
  names_.insert(parameter_names.begin(), parameter_names.end());
}

std::string OnnxBuilder::unique(const std::string& base) {
  std::string name = base;
  for (int n = 2; !names_.insert(name).second; ++n) name = fmt::format("{}_{}", base, n);
  return name;
}

std::string OnnxBuilder::add(const std::string& op_type, const std::string& prefix,
                             const std::vector<std::string>& inputs,
                             const std::vector<std::string>& attributes) {
  const std::string output = unique(prefix + "/" + op_type);
  parts_.nodes.push_back(onnx::node(op_type, output, inputs, {output}, attributes));
  return output;
}

void OnnxBuilder::add_named(const std::string& op_type, const std::string& output,
                            const std::vector<std::string>& inputs,
                            const std::vector<std::string>& attributes) {
  parts_.nodes.push_back(onnx::node(op_type, output, inputs, {output}, attributes));
}

std::string OnnxBuilder::initializer(const std::string& name, const std::vector<std::int64_t>& dims,
                                     const std::vector<float>& values) {
  parts_.initializers.push_back(onnx::float_tensor(name, dims, values));
  return name;
}

std::string OnnxBuilder::weight(const std::string& name, const std::vector<std::int64_t>& dims,
                                const std::vector<float>& values) {
  if (auto it = weights_.find(name); it != weights_.end()) return it->second;
  const std::string stored = io_names_.contains(name) ? unique(name) : name;
  weights_[name] = stored;
  return initializer(stored, dims, values);
}

std::string OnnxBuilder::floats(const std::string& prefix, const std::string& what,
                                const std::vector<std::int64_t>& dims,
                                const std::vector<float>& values) {
  return initializer(unique(prefix + "/" + what), dims, values);
}

std::string OnnxBuilder::scalar(const std::string& prefix, const std::string& what, float value) {
  return floats(prefix, what, {}, {value});
}

std::string OnnxBuilder::int64s(const std::string& prefix, const std::string& what,
                                const std::vector<std::int64_t>& values) {
  const std::string name = unique(prefix + "/" + what);
  parts_.initializers.push_back(
      onnx::int64_tensor(name, {static_cast<std::int64_t>(values.size())}, values));
  return name;
}

std::string OnnxBuilder::int64_scalar(const std::string& prefix, const std::string& what,
                                      std::int64_t value) {
  const std::string name = unique(prefix + "/" + what);
  parts_.initializers.push_back(onnx::int64_tensor(name, {}, {value}));
  return name;
}

}  // namespace runner
