// The ONNX export of each layer kind: a registry as the layer kinds' own. A kind's export is
// defined in its own file in export/layers/ with `RUNNER_ONNX_LAYER(type) { ... }`, a function
// body that writes the kind's nodes and returns the name of the tensor holding its output.
// Every tensor is as PyTorch holds it: images (N, C, H, W), flat (N, C), tokens (N, T, C).
#pragma once

#include <fmt/format.h>

#include <map>
#include <string>
#include <vector>

#include "runner/export/onnx_builder.h"
#include "runner/graph/graph.h"

namespace runner {

// A checkpoint's tensors by name, in PyTorch's layouts.
struct ExportWeight {
  std::vector<std::int64_t> dims;
  std::vector<float> values;
};
using ExportWeights = std::map<std::string, ExportWeight>;

// What one layer's export reads and writes.
struct OnnxLayer {
  OnnxBuilder& onnx;
  const Node& node;
  const std::vector<std::string>& inputs;  // the tensors its inputs are, in order
  const std::vector<Shape>& input_shapes;
  const ExportWeights& weights;
  std::int64_t batch = 0;  // the model's fixed batch size; 0: any (a symbolic dimension)
  // The checkpoint tensor "<layer>.<suffix>" ("<layer>" for an empty suffix) as an initializer
  // under its own name.
  std::string weight(const std::string& suffix) const;
  // The same reshaped to `dims` (as many values): a per-channel vector as (C, 1, 1).
  std::string weight_as(const std::string& suffix, const std::vector<std::int64_t>& dims) const;
  const ExportWeight& values(const std::string& suffix) const;
  // A node of this layer: "<layer>/<op_type>".
  std::string add(const std::string& op_type, const std::vector<std::string>& op_inputs,
                  const std::vector<std::string>& attributes = {}) const {
    return onnx.add(op_type, node.name, op_inputs, attributes);
  }
};

#define RUNNER_ONNX_LAYER(type) std::string onnx_layer_##type(const OnnxLayer& layer)

using OnnxLayerExport = std::string (*)(const OnnxLayer&);
// The export of `type`; null for a kind without one (a unit test keeps that list empty).
OnnxLayerExport find_onnx_layer(const std::string& type);

// Shared by the kinds' files: the dims a per-channel (or per-feature) vector of `shape` takes to
// broadcast against it ((C, 1, 1) for an image, (C) for flat features, (1, 1, C) for tokens).
std::vector<std::int64_t> per_channel_dims(const Shape& shape);
// Rows [first_row, first_row + rows) of a 2-D weight (all rows: rows -1), transposed: the
// (in, out) matrix a MatMul of (..., in) features takes.
std::vector<float> transposed(const ExportWeight& weight, std::int64_t first_row = 0,
                              std::int64_t rows = -1);
}  // namespace runner
