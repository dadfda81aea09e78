// The ONNX export's registry and its refusals (the models' numbers are checked end to end by
// tests/cli/onnx_export_test.cpp, against independent runtimes).
#include <gtest/gtest.h>

#include "runner/export/onnx_builder.h"
#include "runner/export/onnx_export.h"
#include "runner/graph/layer_kind.h"
#include "runner/util/errors.h"

namespace runner::testing {
namespace {

TEST(OnnxLayers, EveryLayerKindHasAnExport) {
  for (const LayerKind& kind : layer_kinds()) {
    EXPECT_NE(find_onnx_layer(kind.type), nullptr) << kind.type << " has no ONNX export";
  }
  EXPECT_EQ(find_onnx_layer("no_such_kind"), nullptr);
}

Graph small_graph() {
  ModelSpec model;
  LayerSpec conv;
  conv.name = "conv";
  conv.type = "conv2d";
  conv.attributes = {{"out_channels", 2}, {"kernel", 3}};
  LayerSpec flat;
  flat.name = "flat";
  flat.type = "flatten";
  LayerSpec fc;
  fc.name = "fc";
  fc.type = "linear";
  fc.attributes = {{"out_features", 3}};
  model.layers = {conv, flat, fc};
  return build_graph(model, Shape{1, 5, 5}, 3);
}

// The checkpoint's tensors for `graph`, each value 0.5.
ExportWeights weights_for(const Graph& graph) {
  ExportWeights weights;
  for (const Node& node : graph.nodes) {
    for (const ParamSpec& p : node.params) {
      weights[p.name] = {p.dims, std::vector<float>(static_cast<std::size_t>(p.elements()), 0.5f)};
    }
  }
  return weights;
}

TEST(OnnxExport, AMissingWeightIsNamed) {
  const Graph graph = small_graph();
  ExportWeights weights = weights_for(graph);
  EXPECT_FALSE(export_onnx(graph, weights, {}).empty());
  weights.erase("fc.bias");
  try {
    export_onnx(graph, weights, {});
    FAIL() << "exported without fc.bias";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("fc.bias"), std::string::npos) << e.what();
  }
}

// The weights travel as raw little-endian floats under their checkpoint names: the conv's
// 18 weights of 0.5 (0x3f000000) appear as one run of 72 bytes after the name.
TEST(OnnxExport, WeightsKeepTheirNamesAndValues) {
  const Graph graph = small_graph();
  const std::string bytes = export_onnx(graph, weights_for(graph), {});
  std::string halves;
  for (int i = 0; i < 18; ++i) halves += std::string("\x00\x00\x00\x3f", 4);
  const std::size_t name = bytes.find("conv.weight");
  ASSERT_NE(name, std::string::npos);
  EXPECT_NE(bytes.find(halves, name), std::string::npos);
  EXPECT_NE(bytes.find("fc.bias"), std::string::npos);
}

// Checkpoint tensors keep their names (a graph input or output name excepted) and are stored
// once; what is made from them has a '/' in its name, which no layer name has.
TEST(OnnxBuilderNames, WeightsKeepTheirNamesAndMadeTensorsTakeSlashNames) {
  OnnxBuilder onnx({"pixels", "logits"}, {"fc.weight", "logits"});
  EXPECT_EQ(onnx.weight("fc.weight", {1}, {1.f}), "fc.weight");
  EXPECT_EQ(onnx.weight("fc.weight", {1}, {1.f}), "fc.weight");
  EXPECT_EQ(onnx.weight("logits", {1}, {1.f}), "logits_2");  // a layer named as the output
  EXPECT_EQ(onnx.floats("fc", "weight_transposed", {1}, {1.f}), "fc/weight_transposed");
  EXPECT_EQ(onnx.floats("fc", "weight_transposed", {1}, {1.f}), "fc/weight_transposed_2");
  EXPECT_EQ(onnx.add("Relu", "fc", {"fc.weight"}), "fc/Relu");
  EXPECT_EQ(onnx.parts().initializers.size(), 4u);
}

}  // namespace
}  // namespace runner::testing
