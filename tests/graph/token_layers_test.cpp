// Token sequences on the graph: to_tokens, class_token, position_embedding, token_select, linear
// on tokens and drop_path; their shapes, timm's parameter names and starts, FLOPs, and the shape
// errors of kinds given the wrong sort of input (images to token kinds, tokens to image kinds).
#include <gtest/gtest.h>

#include "backends/layer_cases.h"
#include "graph_error.h"
#include "runner/graph/layer_kind.h"

namespace runner {
namespace {

using testing::graph_error;
using testing::layer;

// A ViT's stem on 3x8x8 images: 4x4 patches of 6 features (4 tokens), then `body`, the class
// token read out and a 3-way classifier.
ModelSpec vit(std::vector<LayerSpec> body) {
  std::vector<LayerSpec> layers = {
      layer("patch", "conv2d", {{"out_channels", 6}, {"kernel", 4}, {"stride", 4}}),
      layer("tokens", "to_tokens")};
  for (LayerSpec& spec : body) layers.push_back(std::move(spec));
  layers.push_back(layer("select", "token_select"));
  layers.push_back(layer("head", "linear", {{"out_features", 3}}));
  ModelSpec model;
  model.layers = std::move(layers);
  return model;
}

const Node& named_node(const Graph& graph, const std::string& name) {
  for (const Node& node : graph.nodes) {
    if (node.name == name) return node;
  }
  throw std::runtime_error("no node " + name);
}

TEST(TokenLayers, ShapesParametersAndFlopsOfAVitStem) {
  Graph graph =
      build_graph(vit({layer("cls_token", "class_token"), layer("pos_embed", "position_embedding"),
                       layer("fc", "linear", {{"out_features", 9}})}),
                  Shape{3, 8, 8}, 3);
  const Shape tokens{6, 4, 1, false, true};
  EXPECT_EQ(named_node(graph, "tokens").output, tokens);
  EXPECT_EQ(tokens.str(), "4x6 tokens");  // T x C
  EXPECT_FALSE(tokens == (Shape{6, 4, 1}));
  EXPECT_EQ(named_node(graph, "tokens").flops, 0);

  const Node& cls = named_node(graph, "cls_token");
  EXPECT_EQ(cls.output, (Shape{6, 5, 1, false, true}));
  ASSERT_EQ(cls.params.size(), 1u);
  EXPECT_EQ(cls.params[0].name, "cls_token");  // timm's bare parameter, named as the layer
  EXPECT_EQ(cls.params[0].dims, (std::vector<std::int64_t>{1, 1, 6}));
  EXPECT_EQ(cls.params[0].init, ParamInit::normal);
  EXPECT_DOUBLE_EQ(cls.params[0].stddev, 1e-6);
  EXPECT_TRUE(cls.params[0].embedding && cls.params[0].trainable);
  EXPECT_FALSE(cls.params[0].normalization);

  const Node& pos = named_node(graph, "pos_embed");
  EXPECT_EQ(pos.output, cls.output);
  ASSERT_EQ(pos.params.size(), 1u);
  EXPECT_EQ(pos.params[0].name, "pos_embed");
  EXPECT_EQ(pos.params[0].dims, (std::vector<std::int64_t>{1, 5, 6}));
  EXPECT_EQ(pos.params[0].init, ParamInit::truncated_normal);
  EXPECT_DOUBLE_EQ(pos.params[0].stddev, 0.02);
  EXPECT_TRUE(pos.params[0].embedding);
  EXPECT_EQ(pos.flops, 5 * 6);

  // nn.Linear(6, 9) on (N, 5, 6): its parameters, the FLOPs of each of the 5 tokens.
  const Node& fc = named_node(graph, "fc");
  EXPECT_EQ(fc.output, (Shape{9, 5, 1, false, true}));
  EXPECT_EQ(fc.params[0].name, "fc.weight");
  EXPECT_EQ(fc.params[0].dims, (std::vector<std::int64_t>{9, 6}));
  EXPECT_EQ(fc.params[1].dims, (std::vector<std::int64_t>{9}));
  EXPECT_EQ(fc.flops, 5 * (2 * 6 * 9 + 9));

  EXPECT_EQ(named_node(graph, "select").output, (Shape{9, 1, 1, true}));
  EXPECT_EQ(named_node(graph, "select").flops, 0);
}

TEST(TokenLayers, TokenSelectMeanCountsItsAddsAndDropPathKeepsAnyShape) {
  ModelSpec model = vit({layer("dp", "drop_path", {{"p", 0.25}})});
  model.layers[3].attributes["select"] = "mean";
  model.layers.insert(model.layers.begin() + 1, layer("dp_image", "drop_path", {{"p", 0.1}}));
  Graph graph = build_graph(model, Shape{3, 8, 8}, 3);
  EXPECT_EQ(named_node(graph, "dp_image").output, (Shape{6, 2, 2}));
  EXPECT_EQ(named_node(graph, "dp").output, (Shape{6, 4, 1, false, true}));
  EXPECT_DOUBLE_EQ(named_node(graph, "dp").attrs.p, 0.25);
  EXPECT_TRUE(named_node(graph, "dp").params.empty());
  EXPECT_EQ(named_node(graph, "select").attrs.select, TokenSelect::mean);
  EXPECT_EQ(named_node(graph, "select").flops, 4 * 6);
}

TEST(TokenLayers, ImageKindsRefuseTokensNamingTheLayerAndItsLine) {
  struct Refusal {
    LayerSpec spec;
    std::string message;
  };
  const auto none = nlohmann::json::object();
  const std::string needs_image = "needs an image input (CxHxW), got the token sequence 4x6 tokens";
  const std::vector<Refusal> refusals = {
      {layer("x", "conv2d", {{"out_channels", 2}, {"kernel", 1}}), needs_image},
      {layer("x", "max_pool2d", {{"kernel", 1}}), needs_image},
      {layer("x", "avg_pool2d", {{"kernel", 1}}), needs_image},
      {layer("x", "global_avg_pool2d"), needs_image},
      {layer("x", "batch_norm2d"), needs_image},
      {layer("x", "to_tokens"), needs_image},
      {layer("x", "group_norm", {{"groups", 2}}),
       "normalises images or flat features, got the token sequence 4x6 tokens: use layer_norm"},
      {layer("x", "flatten"), "got the token sequence 4x6 tokens: a token_select"},
      {layer("x", "concat", none, {"tokens", "tokens"}),
       "joins images or flat features; input 1 is the token sequence 4x6 tokens"},
      {layer("x", "mul", none, {"tokens", "patch"}),
       "input 2 must have input 1's shape: input 1 is 4x6 tokens, input 2 is 6x2x2"},
  };
  for (const Refusal& r : refusals) {
    ModelSpec model = vit({r.spec});
    model.layers[2].where = {"vit.yaml", "model.layers[2]", 7, 5};
    const std::string message = graph_error(model, Shape{3, 8, 8});
    EXPECT_NE(message.find("vit.yaml:7:5: model.layers[2]: x (" + r.spec.type + "): " + r.message),
              std::string::npos)
        << message;
  }
}

TEST(TokenLayers, TokenKindsRefuseImagesAndFlatFeatures) {
  for (const char* type : {"class_token", "position_embedding", "token_select"}) {
    ModelSpec model;
    model.layers = {layer("x", type), layer("flat", "flatten"),
                    layer("fc", "linear", {{"out_features", 3}})};
    EXPECT_NE(graph_error(model, Shape{2, 3, 3})
                  .find(std::string("x (") + type +
                        "): needs a token sequence (TxC tokens, after to_tokens), got the image "
                        "2x3x3"),
              std::string::npos)
        << type;
    model.layers = {layer("flat", "flatten"), layer("x", type),
                    layer("fc", "linear", {{"out_features", 3}})};
    EXPECT_NE(graph_error(model, Shape{2, 3, 3}).find("got the flat 18"), std::string::npos)
        << type;
  }
}

TEST(TokenLayers, ModelWidthScalesTheTokensFeatures) {
  ModelSpec model = vit({layer("fc", "linear", {{"out_features", 8}})});
  model.width = 0.5;
  Graph graph = build_graph(model, Shape{3, 8, 8}, 3);
  EXPECT_EQ(named_node(graph, "tokens").output, (Shape{3, 4, 1, false, true}));
  EXPECT_EQ(named_node(graph, "fc").output, (Shape{4, 4, 1, false, true}));
}

}  // namespace
}  // namespace runner
