// An ONNX graph being written: nodes in order, their outputs named uniquely, and the
// initializers (the run's weights and the constants the nodes need).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "runner/export/onnx_proto.h"

namespace runner {

class OnnxBuilder {
 public:
  // `io_names`: the graph's input and output names, which no other tensor may take;
  // `parameter_names`: the checkpoint's tensors, which keep their names (nothing else is named
  // as one: generated names hold a '/', which layer names cannot).
  OnnxBuilder(const std::vector<std::string>& io_names,
              const std::vector<std::string>& parameter_names);
  // Adds a node and returns its output's name, "<prefix>/<op_type>" (made unique).
  std::string add(const std::string& op_type, const std::string& prefix,
                  const std::vector<std::string>& inputs,
                  const std::vector<std::string>& attributes = {});
  // The same with the output named exactly `output`, one of the reserved names ("logits").
  void add_named(const std::string& op_type, const std::string& output,
                 const std::vector<std::string>& inputs,
                 const std::vector<std::string>& attributes = {});
  // A checkpoint tensor as an initializer under its own name (once, however often asked), or
  // as "<name>_2" where that is one of the graph's input and output names; returns the name.
  std::string weight(const std::string& name, const std::vector<std::int64_t>& dims,
                     const std::vector<float>& values);
  // Constants and tensors made from the weights (a transposed matrix), named "<prefix>/<what>"
  // (made unique); each returns its name.
  std::string floats(const std::string& prefix, const std::string& what,
                     const std::vector<std::int64_t>& dims, const std::vector<float>& values);
  std::string scalar(const std::string& prefix, const std::string& what, float value);
  std::string int64s(const std::string& prefix, const std::string& what,
                     const std::vector<std::int64_t>& values);  // a 1-D tensor
  std::string int64_scalar(const std::string& prefix, const std::string& what, std::int64_t value);

  onnx::GraphParts& parts() { return parts_; }

 private:
  std::string unique(const std::string& base);
  std::string initializer(const std::string& name, const std::vector<std::int64_t>& dims,
                          const std::vector<float>& values);
  std::set<std::string> names_, io_names_;
  std::map<std::string, std::string> weights_;  // checkpoint name -> initializer name
  onnx::GraphParts parts_;
};

}  // namespace runner
