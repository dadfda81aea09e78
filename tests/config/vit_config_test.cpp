// configs/vit_tiny_cifar.yaml: its tensors are timm's VisionTransformer's (img_size 32,
// patch_size 4, embed_dim 192, depth 6, num_heads 3, mlp_ratio 2, num_classes 10), by name and
// shape, 1,806,538 parameters (sum(p.numel()) of that model); model.width scales it while the
// heads divide the scaled dim, and names the heads where they do not.
#include <gtest/gtest.h>

#include "runner/config/load_config.h"
#include "runner/graph/graph.h"
#include "test_support.h"

namespace runner {
namespace {

using Tensors = std::vector<std::pair<std::string, std::vector<std::int64_t>>>;

// timm's state_dict, in the order the runner's layers hold the tensors.
Tensors timm_vit_tiny_cifar() {
  const std::int64_t d = 192, hidden = 384;
  Tensors t = {{"patch_embed.proj.weight", {d, 3, 4, 4}},
               {"patch_embed.proj.bias", {d}},
               {"cls_token", {1, 1, d}},
               {"pos_embed", {1, 65, d}}};
  for (int i = 0; i < 6; ++i) {
    const std::string b = "blocks." + std::to_string(i) + ".";
    const Tensors block = {{b + "norm1.weight", {d}},           {b + "norm1.bias", {d}},
                           {b + "attn.qkv.weight", {3 * d, d}}, {b + "attn.qkv.bias", {3 * d}},
                           {b + "attn.proj.weight", {d, d}},    {b + "attn.proj.bias", {d}},
                           {b + "norm2.weight", {d}},           {b + "norm2.bias", {d}},
                           {b + "mlp.fc1.weight", {hidden, d}}, {b + "mlp.fc1.bias", {hidden}},
                           {b + "mlp.fc2.weight", {d, hidden}}, {b + "mlp.fc2.bias", {d}}};
    t.insert(t.end(), block.begin(), block.end());
  }
  const Tensors tail = {
      {"norm.weight", {d}}, {"norm.bias", {d}}, {"head.weight", {10, d}}, {"head.bias", {10}}};
  t.insert(t.end(), tail.begin(), tail.end());
  return t;
}

Graph vit_graph(const std::vector<std::string>& overrides = {}) {
  const Experiment e =
      load_experiment(testing::source_dir() / "configs" / "vit_tiny_cifar.yaml", overrides);
  return build_graph(e.model, Shape{3, 32, 32}, 10);
}

TEST(VitConfig, HasTimmsTensorNamesAndShapes) {
  const Graph graph = vit_graph();
  Tensors ours;
  for (const Node& node : graph.nodes) {
    for (const ParamSpec& p : node.params) ours.push_back({p.name, p.dims});
  }
  EXPECT_EQ(ours, timm_vit_tiny_cifar());
  EXPECT_EQ(graph.parameter_count(), 1806538);
  EXPECT_EQ(graph.output().output, (Shape{10, 1, 1, true}));
}

TEST(VitConfig, ModelWidthScalesTheDimWhileTheHeadsDivideIt) {
  for (const auto& [width, dim] :
       std::vector<std::pair<std::string, int>>{{"0.5", 96}, {"0.25", 48}, {"2", 384}}) {
    const Graph graph = vit_graph({"model.width=" + width});
    for (const Node& node : graph.nodes) {
      if (node.name == "blocks.5.attn") EXPECT_EQ(node.output.c, dim) << width;
      if (node.name == "blocks.5.mlp.fc1") EXPECT_EQ(node.output.c, 2 * dim) << width;
    }
  }
  try {
    vit_graph({"model.width=0.3"});  // 58 features
    ADD_FAILURE() << "width 0.3 built";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("blocks.0.attn (self_attention): input 65x58 tokens has "
                                         "58 features, not divisible by heads 3"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace runner
