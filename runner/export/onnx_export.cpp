// Writing a graph as an ONNX model (onnx_export.h).
#include "runner/export/onnx_export.h"

#include <fmt/format.h>

#include "backends/common/host_math.h"
#include "runner/report/environment.h"
#include "runner/util/errors.h"

namespace runner {
namespace {

constexpr const char* kInput = "pixels";

// pixels * scale[c] + shift[c], the arithmetic of the runner's own input normalisation.
std::string normalized_input(OnnxBuilder& onnx, const Graph& graph, const Normalization& norm) {
  const ByteNormalizer normalizer(norm, graph.input.c);
  const std::vector<std::int64_t> dims = {graph.input.c, 1, 1};
  const std::string scaled = onnx.add(
      "Mul", "normalize", {kInput, onnx.floats("normalize", "scale", dims, normalizer.scale)});
  return onnx.add("Add", "normalize",
                  {scaled, onnx.floats("normalize", "shift", dims, normalizer.shift)});
}

}  // namespace

std::string export_onnx(const Graph& graph, const ExportWeights& weights,
                        const OnnxExportSpec& spec) {
  std::vector<std::string> parameters;
  for (const Node& node : graph.nodes) {
    for (const ParamSpec& param : node.params) parameters.push_back(param.name);
  }
  OnnxBuilder onnx({kInput, "logits", "probabilities"}, parameters);
  const std::string input = normalized_input(onnx, graph, spec.normalize);
  std::vector<std::string> outputs;  // per node, the tensor holding its output
  for (const Node& node : graph.nodes) {
    const OnnxLayerExport write = find_onnx_layer(node.type);
    if (!write) {
      throw UserError(
          fmt::format("layer {}: kind {} has no ONNX export yet", node.name, node.type));
    }
    std::vector<std::string> inputs;
    for (int i : node.inputs) inputs.push_back(i == kDataInput ? input : outputs[i]);
    const std::vector<Shape> shapes = graph.input_shapes(node);
    outputs.push_back(write(OnnxLayer{onnx, node, inputs, shapes, weights, spec.batch}));
  }
  onnx.add_named("Identity", "logits", {outputs.back()});  // build_graph made it flat
  const onnx::Dimension batch =
      spec.batch > 0 ? onnx::Dimension(spec.batch) : onnx::Dimension(std::string("batch"));
  const std::vector<onnx::Dimension> output_dims = {batch, std::int64_t{graph.classes}};
  onnx::GraphParts& parts = onnx.parts();
  parts.name = spec.name;
  parts.inputs.push_back(onnx::value_info(
      kInput, onnx::ElementType::float32,
      {batch, std::int64_t{graph.input.c}, std::int64_t{graph.input.h},
       std::int64_t{graph.input.w}},
      "pixel values 0-255, (N, C, H, W), channels in the run's order (RGB or gray), the image "
      "resized as the run's test images were"));
  parts.outputs.push_back(onnx::value_info("logits", onnx::ElementType::float32, output_dims,
                                           "the classifier's values, one per class"));
  if (spec.softmax) {
    onnx.add_named("Softmax", "probabilities", {"logits"}, {onnx::int_attribute("axis", 1)});
    parts.outputs.push_back(onnx::value_info("probabilities", onnx::ElementType::float32,
                                             output_dims, "softmax of the logits"));
  }
  onnx::ModelParts model;
  model.producer_name = "runner";
  model.producer_version = runner_version();
  model.doc = spec.doc;
  model.graph = onnx::graph(parts);
  parts = {};  // the initializers' bytes, now in model.graph
  model.metadata = spec.metadata;
  return onnx::model(model);
}

}  // namespace runner
