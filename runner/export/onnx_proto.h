// The few ONNX messages an export writes (onnx.proto: ModelProto, GraphProto, NodeProto,
// AttributeProto, TensorProto, ValueInfoProto), encoded with the protobuf wire helpers. Each
// function returns one message's bytes, to be embedded in the next.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace runner::onnx {

// TensorProto.DataType values used here.
enum class ElementType : int { float32 = 1, int64 = 7 };

// An AttributeProto of each kind a node here needs.
std::string int_attribute(const std::string& name, std::int64_t value);
std::string float_attribute(const std::string& name, float value);
std::string ints_attribute(const std::string& name, const std::vector<std::int64_t>& values);

// A TensorProto holding `values` as raw little-endian bytes.
std::string float_tensor(const std::string& name, const std::vector<std::int64_t>& dims,
                         const std::vector<float>& values);
std::string int64_tensor(const std::string& name, const std::vector<std::int64_t>& dims,
                         const std::vector<std::int64_t>& values);

std::string node(const std::string& op_type, const std::string& name,
                 const std::vector<std::string>& inputs, const std::vector<std::string>& outputs,
                 const std::vector<std::string>& attributes);

// A dimension of a graph input or output: a size, or a named symbolic one ("batch").
using Dimension = std::variant<std::int64_t, std::string>;
std::string value_info(const std::string& name, ElementType type,
                       const std::vector<Dimension>& dims, const std::string& doc = "");

struct GraphParts {
  std::string name;
  std::vector<std::string> nodes, initializers, inputs, outputs;  // encoded messages
};
std::string graph(const GraphParts& parts);

struct ModelParts {
  std::int64_t ir_version = 7;  // ONNX 1.8's IR, the first with opset 13
  std::int64_t opset = 13;
  std::string producer_name, producer_version, doc;
  std::string graph;  // encoded GraphProto
  std::vector<std::pair<std::string, std::string>> metadata;
};
std::string model(const ModelParts& parts);

}  // namespace runner::onnx
