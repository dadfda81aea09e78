// The registry of the layer kinds' ONNX exports, and the helpers they share (onnx_layer.h).
#include "runner/export/onnx_layer.h"

#include <fmt/format.h>

#include "runner/util/errors.h"

namespace runner {

#define RUNNER_REGISTRY_ENTRY(type) RUNNER_ONNX_LAYER(type);
#include "runner/export/onnx_layers.inc"
#undef RUNNER_REGISTRY_ENTRY

OnnxLayerExport find_onnx_layer(const std::string& type) {
  static const std::map<std::string, OnnxLayerExport> exports = {
#define RUNNER_REGISTRY_ENTRY(type) {#type, &onnx_layer_##type},
#include "runner/export/onnx_layers.inc"
#undef RUNNER_REGISTRY_ENTRY
  };
  auto it = exports.find(type);
  return it == exports.end() ? nullptr : it->second;
}

namespace {

std::string tensor_name(const Node& node, const std::string& suffix) {
  return suffix.empty() ? node.name : node.name + "." + suffix;
}

}  // namespace

const ExportWeight& OnnxLayer::values(const std::string& suffix) const {
  const std::string name = tensor_name(node, suffix);
  auto it = weights.find(name);
  if (it == weights.end()) {
    throw UserError(fmt::format("the checkpoint has no tensor {} (layer {} of type {})", name,
                                node.name, node.type));
  }
  return it->second;
}

std::string OnnxLayer::weight(const std::string& suffix) const {
  const ExportWeight& w = values(suffix);
  return onnx.weight(tensor_name(node, suffix), w.dims, w.values);
}

std::string OnnxLayer::weight_as(const std::string& suffix,
                                 const std::vector<std::int64_t>& dims) const {
  return onnx.weight(tensor_name(node, suffix), dims, values(suffix).values);
}

std::vector<float> transposed(const ExportWeight& weight, std::int64_t first_row,
                              std::int64_t rows) {
  const std::int64_t columns = weight.dims.at(1);
  if (rows < 0) rows = weight.dims.at(0) - first_row;
  std::vector<float> out(static_cast<std::size_t>(rows * columns));
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < columns; ++c) {
      out[c * rows + r] = weight.values[(first_row + r) * columns + c];
    }
  }
  return out;
}

std::vector<std::int64_t> per_channel_dims(const Shape& shape) {
  if (shape.is_image()) return {shape.c, 1, 1};
  if (shape.tokens) return {1, 1, shape.c};  // OpenCV 4.6 applies a 1-D (C) to axis 1, the tokens
  return {shape.c};
}

}  // namespace runner
