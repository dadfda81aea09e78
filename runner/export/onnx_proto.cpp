// ONNX messages by hand (onnx_proto.h); the field numbers are onnx.proto's.
#include "runner/export/onnx_proto.h"

#include "runner/report/protobuf_wire.h"

namespace runner::onnx {
namespace {

namespace pb = runner::protobuf;

// AttributeProto.AttributeType
enum AttributeType : std::uint64_t { kFloat = 1, kInt = 2, kInts = 7 };

std::string attribute_header(const std::string& name, AttributeType type) {
  std::string out;
  pb::bytes_field(out, 1, name);
  pb::varint_field(out, 20, type);
  return out;
}

template <typename T>
std::string raw_tensor(const std::string& name, const std::vector<std::int64_t>& dims,
                       ElementType type, const std::vector<T>& values) {
  std::string out;
  for (std::int64_t d : dims) pb::varint_field(out, 1, static_cast<std::uint64_t>(d));
  pb::varint_field(out, 2, static_cast<std::uint64_t>(type));
  pb::bytes_field(out, 8, name);
  std::string raw;
  raw.reserve(values.size() * sizeof(T));
  for (T v : values) pb::little_endian(raw, v);
  pb::bytes_field(out, 9, raw);
  return out;
}

}  // namespace

std::string int_attribute(const std::string& name, std::int64_t value) {
  std::string out = attribute_header(name, kInt);
  pb::varint_field(out, 3, static_cast<std::uint64_t>(value));
  return out;
}

std::string float_attribute(const std::string& name, float value) {
  std::string out = attribute_header(name, kFloat);
  pb::float_field(out, 2, value);
  return out;
}

std::string ints_attribute(const std::string& name, const std::vector<std::int64_t>& values) {
  std::string out = attribute_header(name, kInts);
  for (std::int64_t v : values) pb::varint_field(out, 8, static_cast<std::uint64_t>(v));
  return out;
}

std::string float_tensor(const std::string& name, const std::vector<std::int64_t>& dims,
                         const std::vector<float>& values) {
  return raw_tensor(name, dims, ElementType::float32, values);
}

std::string int64_tensor(const std::string& name, const std::vector<std::int64_t>& dims,
                         const std::vector<std::int64_t>& values) {
  return raw_tensor(name, dims, ElementType::int64, values);
}

std::string node(const std::string& op_type, const std::string& name,
                 const std::vector<std::string>& inputs, const std::vector<std::string>& outputs,
                 const std::vector<std::string>& attributes) {
  std::string out;
  for (const std::string& input : inputs) pb::bytes_field(out, 1, input);
  for (const std::string& output : outputs) pb::bytes_field(out, 2, output);
  pb::bytes_field(out, 3, name);
  pb::bytes_field(out, 4, op_type);
  for (const std::string& attribute : attributes) pb::bytes_field(out, 5, attribute);
  return out;
}

std::string value_info(const std::string& name, ElementType type,
                       const std::vector<Dimension>& dims, const std::string& doc) {
  std::string shape;  // TensorShapeProto
  for (const Dimension& d : dims) {
    std::string dimension;
    if (const auto* size = std::get_if<std::int64_t>(&d)) {
      pb::varint_field(dimension, 1, static_cast<std::uint64_t>(*size));
    } else {
      pb::bytes_field(dimension, 2, std::get<std::string>(d));
    }
    pb::bytes_field(shape, 1, dimension);
  }
  std::string tensor_type;  // TypeProto.Tensor
  pb::varint_field(tensor_type, 1, static_cast<std::uint64_t>(type));
  pb::bytes_field(tensor_type, 2, shape);
  std::string type_proto;
  pb::bytes_field(type_proto, 1, tensor_type);
  std::string out;
  pb::bytes_field(out, 1, name);
  pb::bytes_field(out, 2, type_proto);
  if (!doc.empty()) pb::bytes_field(out, 3, doc);
  return out;
}

std::string graph(const GraphParts& parts) {
  std::string out;
  for (const std::string& n : parts.nodes) pb::bytes_field(out, 1, n);
  pb::bytes_field(out, 2, parts.name);
  for (const std::string& t : parts.initializers) pb::bytes_field(out, 5, t);
  for (const std::string& v : parts.inputs) pb::bytes_field(out, 11, v);
  for (const std::string& v : parts.outputs) pb::bytes_field(out, 12, v);
  return out;
}

std::string model(const ModelParts& parts) {
  std::string out;
  pb::varint_field(out, 1, static_cast<std::uint64_t>(parts.ir_version));
  pb::bytes_field(out, 2, parts.producer_name);
  pb::bytes_field(out, 3, parts.producer_version);
  if (!parts.doc.empty()) pb::bytes_field(out, 6, parts.doc);
  pb::bytes_field(out, 7, parts.graph);
  std::string opset;  // OperatorSetIdProto of the default domain ""
  pb::varint_field(opset, 2, static_cast<std::uint64_t>(parts.opset));
  pb::bytes_field(out, 8, opset);
  for (const auto& [key, value] : parts.metadata) {
    std::string entry;
    pb::bytes_field(entry, 1, key);
    pb::bytes_field(entry, 2, value);
    pb::bytes_field(out, 14, entry);
  }
  return out;
}

}  // namespace runner::onnx
