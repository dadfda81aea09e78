// self_attention on the graph: timm's Attention's parameter names and shapes, FLOPs, and the
// shape errors (heads not dividing the features, also after model.width; an input that is not a
// token sequence).
#include <gtest/gtest.h>

#include "backends/layer_cases.h"
#include "graph_error.h"
#include "runner/graph/layer_kind.h"

namespace runner {
namespace {

using testing::layer;

// 3x8x8 images as 4 tokens of `features`, then `attention`, the class token read out, 3 classes.
ModelSpec attention_model(int features, LayerSpec attention) {
  ModelSpec model;
  model.layers = {
      layer("patch", "conv2d", {{"out_channels", features}, {"kernel", 4}, {"stride", 4}}),
      layer("tokens", "to_tokens"), std::move(attention), layer("select", "token_select"),
      layer("head", "linear", {{"out_features", 3}})};
  return model;
}

std::string attention_error(const ModelSpec& model) {
  return testing::graph_error(model, Shape{3, 8, 8});
}

TEST(AttentionLayer, ParametersAreNamedAsTimmsAttention) {
  Graph graph =
      build_graph(attention_model(6, layer("blocks.0.attn", "self_attention", {{"heads", 3}})),
                  Shape{3, 8, 8}, 3);
  const Node& attn = graph.nodes[2];
  EXPECT_EQ(attn.output, (Shape{6, 4, 1, false, true}));
  ASSERT_EQ(attn.params.size(), 4u);
  const std::vector<std::pair<std::string, std::vector<std::int64_t>>> expected = {
      {"blocks.0.attn.qkv.weight", {18, 6}},
      {"blocks.0.attn.qkv.bias", {18}},
      {"blocks.0.attn.proj.weight", {6, 6}},
      {"blocks.0.attn.proj.bias", {6}}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(attn.params[i].name, expected[i].first);
    EXPECT_EQ(attn.params[i].dims, expected[i].second);
    EXPECT_EQ(attn.params[i].fan_in, 6);  // nn.Linear's start: U(+-1/sqrt(6))
    EXPECT_EQ(attn.params[i].init, ParamInit::fan_in_uniform);
  }
  EXPECT_EQ(attn.attrs.heads, 3);
  EXPECT_DOUBLE_EQ(attn.attrs.p, 0.0);
  // qkv 2 T C 3C, q k^T 2 T T C, P v 2 T T C, proj 2 T C C, and the biases 4 T C.
  EXPECT_EQ(attn.flops, 2 * 4 * 6 * 18 + 2 * 4 * 4 * 6 * 2 + 2 * 4 * 6 * 6 + 4 * 4 * 6);
}

TEST(AttentionLayer, WithoutBiasOnlyTheWeightsAndKaimingAsModelInit) {
  ModelSpec model = attention_model(
      8, layer("attn", "self_attention", {{"heads", 2}, {"bias", false}, {"dropout", 0.1}}));
  model.init = WeightInit::kaiming_normal;
  Graph graph = build_graph(model, Shape{3, 8, 8}, 3);
  const Node& attn = graph.nodes[2];
  ASSERT_EQ(attn.params.size(), 2u);
  EXPECT_EQ(attn.params[0].name, "attn.qkv.weight");
  EXPECT_EQ(attn.params[1].name, "attn.proj.weight");
  EXPECT_EQ(attn.params[1].init, ParamInit::kaiming_normal);
  EXPECT_DOUBLE_EQ(attn.attrs.p, 0.1);
  EXPECT_EQ(attn.flops, 2 * 4 * 8 * 24 + 2 * 4 * 4 * 8 * 2 + 2 * 4 * 8 * 8);
}

TEST(AttentionLayer, HeadsMustDivideTheFeaturesAlsoAfterModelWidth) {
  ModelSpec model = attention_model(12, layer("attn", "self_attention", {{"heads", 3}}));
  model.layers[2].where = {"vit.yaml", "model.layers[2]", 12, 7};
  EXPECT_EQ(attention_error(model), "no error");
  model.width = 0.5;  // 6 features: still divisible by 3
  EXPECT_EQ(attention_error(model), "no error");
  model.width = 0.75;  // 9 features
  EXPECT_EQ(attention_error(model), "no error");
  model.width = 1.0 / 3;  // 4 features
  EXPECT_NE(attention_error(model).find("vit.yaml:12:7: model.layers[2]: attn (self_attention): "
                                        "input 4x4 tokens has 4 features, not divisible by heads "
                                        "3 (model.width scales the features, not the heads)"),
            std::string::npos)
      << attention_error(model);
}

TEST(AttentionLayer, NeedsATokenSequence) {
  ModelSpec model = attention_model(6, layer("attn", "self_attention", {{"heads", 1}}));
  std::swap(model.layers[1], model.layers[2]);  // attention on the patches' image
  model.layers[1].inputs = {"patch"};
  model.layers[2].inputs = {"attn"};
  EXPECT_NE(attention_error(model).find("attn (self_attention): needs a token sequence (TxC "
                                        "tokens, after to_tokens), got the image 6x2x2"),
            std::string::npos)
      << attention_error(model);
}

}  // namespace
}  // namespace runner
