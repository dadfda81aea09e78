// An ONNX graph being written: nodes in order, their outputs named uniquely, and the
// initializers (the run's weights and the constants the nodes need).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "runner/export/onnx_proto.h"

namespace runner {

class OnnxBuilder {
 public:
  // `reserved`: the graph's input and output names, which no other tensor may take.
  explicit OnnxBuilder(const std::vector<std::string>& reserved);
  // Adds a node and returns its output's name, "<prefix>/<op_type>" (made unique).
  std::string add(const std::string& op_type, const std::string& prefix,
                  const std::vector<std::string>& inputs,
                  const std::vector<std::string>& attributes = {});
  // The same with the output named exactly `output`, one of the reserved names ("logits").
  void add_named(const std::string& op_type, const std::string& output,
                 const std::vector<std::string>& inputs,
                 const std::vector<std::string>& attributes = {});
  // An initializer named exactly `name` (a weight under the checkpoint's name); returns it.
  std::string weight(const std::string& name, const std::vector<std::int64_t>& dims,
                     const std::vector<float>& values);
  // Constants, named "<prefix>/<what>" (made unique); each returns its name.
  std::string floats(const std::string& prefix, const std::string& what,
                     const std::vector<std::int64_t>& dims, const std::vector<float>& values);
  std::string scalar(const std::string& prefix, const std::string& what, float value);
  std::string int64s(const std::string& prefix, const std::string& what,
                     const std::vector<std::int64_t>& values);  // a 1-D tensor
  std::string int64_scalar(const std::string& prefix, const std::string& what, std::int64_t value);

  onnx::GraphParts& parts() { return parts_; }

 private:
  std::string unique(const std::string& base);
  std::set<std::string> names_;
  onnx::GraphParts parts_;
};

}  // namespace runner
