// Blocks in the model YAML: what a use expands to (names, parameters, repeats, first/rest,
// left-out entries, nesting, inputs), what the resolved config keeps, and the messages of misuse.
#include "runner/config/block_expansion.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "runner/config/load_config.h"
#include "runner/graph/dataset_geometry.h"
#include "runner/graph/graph.h"
#include "test_support.h"

namespace runner {
namespace {

namespace blocks_test {

// A config around `model` (YAML lines under `model:`, indented by two).
std::string config_with_model(const std::string& model) {
  return "name: blocks\n"
         "dataset: {name: synthetic, synthetic: {channels: 3, height: 8, width: 8, classes: 4}}\n"
         "model:\n" +
         model + "training: {epochs: 1, batch_size: 4}\n";
}

// A conv-BN-ReLU block with a residual sum when `residual` (an identity or a projection).
const char* kBlocks =
    "  blocks:\n"
    "    proj:\n"
    "      params: {out: ~, stride: 1}\n"
    "      layers:\n"
    "        - {name: '0', type: conv2d, out_channels: '${out}', kernel: 1, stride: '${stride}'}\n"
    "        - {name: '1', type: batch_norm2d}\n"
    "    unit:\n"
    "      params: {out: ~, stride: 1, project: false}\n"
    "      layers:\n"
    "        - {name: conv, type: conv2d, out_channels: '${out}', kernel: 3, padding: 1,\n"
    "           stride: '${stride}'}\n"
    "        - {name: bn, type: batch_norm2d}\n"
    "        - {name: down, block: proj, inputs: [input], with: {out: '${out}', stride: "
    "'${stride}'},\n"
    "           enabled: '${project}'}\n"
    "        - {name: sum, type: add, inputs: [bn, down]}\n"
    "        - {name: act, type: relu}\n";

Experiment load_model(const testing::TempDir& dir, const std::string& layers,
                      const std::vector<std::string>& overrides = {}) {
  return load_experiment(
      dir.write("c.yaml", config_with_model(std::string(kBlocks) + "  layers:\n" + layers)),
      overrides);
}

const char* kStages =
    "    - {name: stem, type: conv2d, out_channels: 4, kernel: 3, padding: 1}\n"
    "    - {name: stage1, block: unit, repeat: 2, with: {out: 4}}\n"
    "    - {name: stage2, block: unit, repeat: 3, with: {out: 8}, first: {stride: 2, project: "
    "true}}\n"
    "    - {name: pool, type: global_avg_pool2d, flatten: true}\n"
    "    - {name: fc, type: linear, out_features: 4}\n";

std::map<std::string, const LayerSpec*> by_name(const Experiment& e) {
  std::map<std::string, const LayerSpec*> layers;
  for (const LayerSpec& layer : e.model.layers) layers[layer.name] = &layer;
  return layers;
}

std::vector<std::string> names_of(const Experiment& e) {
  std::vector<std::string> names;
  for (const LayerSpec& layer : e.model.layers) names.push_back(layer.name);
  return names;
}

std::string message_of_loading(const testing::TempDir& dir, const std::string& layers,
                               const std::vector<std::string>& overrides = {}) {
  try {
    Experiment e = load_model(dir, layers, overrides);
    build_graph(e.model, Shape{3, 8, 8}, 4);
  } catch (const UserError& error) {
    return error.what();
  }
  return "(loaded without an error)";
}

TEST(BlockExpansion, ARepeatExpandsIntoNumberedInstancesWithTheFirstOneDiffering) {
  testing::TempDir dir;
  Experiment e = load_model(dir, kStages);
  const std::vector<std::string> expected = {
      "stem",          "stage1.0.conv",   "stage1.0.bn",     "stage1.0.sum", "stage1.0.act",
      "stage1.1.conv", "stage1.1.bn",     "stage1.1.sum",    "stage1.1.act", "stage2.0.conv",
      "stage2.0.bn",   "stage2.0.down.0", "stage2.0.down.1", "stage2.0.sum", "stage2.0.act",
      "stage2.1.conv", "stage2.1.bn",     "stage2.1.sum",    "stage2.1.act", "stage2.2.conv",
      "stage2.2.bn",   "stage2.2.sum",    "stage2.2.act",    "pool",         "fc"};
  EXPECT_EQ(names_of(e), expected);
  auto layers = by_name(e);
  // `first` gives the first instance stride 2 and a projection; the rest keep `with` and the
  // defaults, so their left-out projection passes the block's input to the sum.
  EXPECT_EQ(layers["stage2.0.conv"]->attributes["stride"], 2);
  EXPECT_EQ(layers["stage2.0.conv"]->attributes["out_channels"], 8);
  EXPECT_EQ(layers["stage2.1.conv"]->attributes["stride"], 1);
  EXPECT_EQ(layers["stage2.0.down.0"]->inputs, std::vector<std::string>{"stage1.1.act"});
  EXPECT_EQ(layers["stage2.0.sum"]->inputs,
            (std::vector<std::string>{"stage2.0.bn", "stage2.0.down.1"}));
  EXPECT_EQ(layers["stage2.1.sum"]->inputs,
            (std::vector<std::string>{"stage2.1.bn", "stage2.0.act"}));
  EXPECT_EQ(layers["stage1.0.sum"]->inputs, (std::vector<std::string>{"stage1.0.bn", "stem"}));
  // An input is written out only where the previous layer of the flat list is not it.
  EXPECT_TRUE(layers["stage1.0.conv"]->inputs.empty());
  EXPECT_EQ(layers["stage2.0.sum"]->inputs.size(), 2u);
  EXPECT_TRUE(layers["pool"]->inputs.empty());

  // The graph builds and the shapes follow the parameters.
  Graph graph = build_graph(e.model, Shape{3, 8, 8}, 4);
  for (const Node& node : graph.nodes) {
    if (node.name == "stage2.2.act") EXPECT_EQ(node.output, (Shape{8, 4, 4}));
  }
}

TEST(BlockExpansion, ASingleUseIsNamedWithoutAnIndexAndALaterLayerMayNameTheUse) {
  testing::TempDir dir;
  Experiment e = load_model(dir,
                            "    - {name: u, block: unit, with: {out: 3}}\n"
                            "    - {name: pool, type: global_avg_pool2d, flatten: true, inputs: "
                            "[u]}\n"
                            "    - {name: fc, type: linear, out_features: 4}\n");
  auto layers = by_name(e);
  ASSERT_TRUE(layers.contains("u.conv"));
  EXPECT_FALSE(layers.contains("u.0.conv"));
  // The data is the block's input: the left-out projection passes the images to the sum.
  EXPECT_EQ(layers["u.sum"]->inputs, (std::vector<std::string>{"u.bn", "input"}));
  EXPECT_EQ(layers["pool"]->inputs, std::vector<std::string>{"u.act"});
}

TEST(BlockExpansion, ParametersReachExpressionsAndConfigFields) {
  testing::TempDir dir;
  Experiment e = load_experiment(
      dir.write("c.yaml", config_with_model("  blocks:\n"
                                            "    wide:\n"
                                            "      params: {k: 2}\n"
                                            "      layers:\n"
                                            "        - {name: c, type: conv2d, kernel: 1,\n"
                                            "           out_channels: '${expr:k * "
                                            "training.batch_size}'}\n"
                                            "  layers:\n"
                                            "    - {name: w, block: wide, repeat: 2, rest: {k: "
                                            "3}}\n"
                                            "    - {name: f, type: flatten}\n"
                                            "    - {name: fc, type: linear, out_features: 4}\n")),
      {});
  auto layers = by_name(e);
  EXPECT_EQ(layers["w.0.c"]->attributes["out_channels"], 8);   // 2 x batch size 4
  EXPECT_EQ(layers["w.1.c"]->attributes["out_channels"], 12);  // rest: k = 3
}

// One bad block field fails in every instance: the first few are shown in layer order (stage2.2
// before stage2.10, as the numbers go, not as the text sorts), the rest counted.
TEST(BlockExpansion, ABadFieldInEveryInstanceIsShownInLayerOrder) {
  testing::TempDir dir;
  const std::string message = message_of_loading(
      dir, kStages, {"model.layers[2].repeat=12", "model.blocks.unit.layers[0].out_channels=-1"});
  std::vector<std::size_t> positions;
  for (const char* layer :
       {"stage1.0.conv", "stage1.1.conv", "stage2.0.conv", "stage2.1.conv", "stage2.2.conv"}) {
    positions.push_back(message.find(std::string("(layer ") + layer + ","));
    EXPECT_NE(positions.back(), std::string::npos) << layer << " not in\n" << message;
  }
  EXPECT_TRUE(std::is_sorted(positions.begin(), positions.end())) << message;
  EXPECT_EQ(message.find("stage2.10."), std::string::npos) << message;
  EXPECT_NE(message.find("(and 9 more problems)"), std::string::npos) << message;
}

TEST(BlockExpansion, TheResolvedConfigKeepsTheBlocksAsWrittenAndResolvesToTheSameLayers) {
  testing::TempDir dir;
  Experiment e = load_model(dir, kStages);
  ASSERT_TRUE(e.model.uses_blocks());
  EXPECT_TRUE(e.resolved["model"].contains("blocks"));
  EXPECT_EQ(e.resolved["model"]["layers"][1]["block"], "unit");
  EXPECT_EQ(e.resolved["model"]["blocks"]["unit"]["layers"][0]["out_channels"], "${out}");
  ConfigDocument again{"resolved", e.resolved, SourceMap("resolved")};
  ASSERT_NO_THROW(validate_config(again));
  Experiment twice = resolve_experiment(again);
  EXPECT_EQ(twice.resolved, e.resolved);
  EXPECT_EQ(names_of(twice), names_of(e));
  // A sweep's override of a use's parameter reaches every instance.
  Experiment wider = load_model(dir, kStages, {"model.layers[2].with.out=16"});
  EXPECT_EQ(by_name(wider)["stage2.2.conv"]->attributes["out_channels"], 16);
}

// The parameter and buffer names and shapes of torchvision's resnet18 (CIFAR stem), written by
// scripts/torchvision_models.py with the real torchvision.
std::vector<std::pair<std::string, std::vector<std::int64_t>>> torchvision_tensors(
    const std::string& model) {
  std::ifstream in(testing::source_dir() / "tests" / "config" / (model + "_state_dict.json"));
  nlohmann::json golden = nlohmann::json::parse(in);
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> tensors;
  for (const auto& tensor : golden["tensors"]) {
    tensors.emplace_back(tensor["name"], tensor["shape"].get<std::vector<std::int64_t>>());
  }
  return tensors;
}

TEST(BlockExpansion, TheShippedResnet18HasTorchvisionsTensorNamesAndShapes) {
  Experiment e = load_experiment(testing::source_dir() / "configs" / "resnet18_cifar.yaml", {});
  Graph graph = build_graph(e.model, Shape{3, 32, 32}, 10);
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> ours;
  for (const Node& node : graph.nodes) {
    for (const ParamSpec& param : node.params) ours.emplace_back(param.name, param.dims);
  }
  auto expected = torchvision_tensors("resnet18_cifar");
  ASSERT_EQ(expected.size(), 102u);
  std::sort(ours.begin(), ours.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(ours, expected);
}

// MobileNetV2 names its layers by stage (stage4.2.depthwise.0), torchvision by index
// (features.10.conv.1.0): the tensors' shapes in order are held against torchvision's.
TEST(BlockExpansion, TheShippedMobilenetV2HasTorchvisionsTensorShapesInOrder) {
  Experiment e = load_experiment(testing::source_dir() / "configs" / "mobilenetv2_cifar.yaml", {});
  Graph graph = build_graph(e.model, Shape{3, 32, 32}, 10);
  std::vector<std::vector<std::int64_t>> ours, expected;
  std::int64_t trainable = 0;
  for (const Node& node : graph.nodes) {
    for (const ParamSpec& param : node.params) {
      ours.push_back(param.dims);
      if (param.trainable) trainable += param.elements();
    }
  }
  for (const auto& [name, shape] : torchvision_tensors("mobilenetv2_cifar")) {
    expected.push_back(shape);
  }
  EXPECT_EQ(ours, expected);
  EXPECT_EQ(trainable, 2236682);          // sum(p.numel() for p in model.parameters())
  for (const Node& node : graph.nodes) {  // the CIFAR strides: 32x32 until the 32-channel stage
    if (node.name == "stage2.1.sum") EXPECT_EQ(node.output, (Shape{24, 32, 32}));
    if (node.name == "stage7.project_bn") EXPECT_EQ(node.output, (Shape{320, 4, 4}));
  }
}

struct Misuse {
  std::string name;
  std::string layers;
  std::vector<std::string> overrides;
  std::vector<std::string> expected;  // substrings of the message
};

class BlockMisuse : public ::testing::TestWithParam<Misuse> {};

TEST_P(BlockMisuse, IsAClearErrorNamingTheField) {
  testing::TempDir dir;
  const std::string message = message_of_loading(dir, GetParam().layers, GetParam().overrides);
  for (const auto& part : GetParam().expected) {
    EXPECT_NE(message.find(part), std::string::npos) << "expected '" << part << "' in\n" << message;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BlockMisuse,
    ::testing::Values(
        Misuse{"UnknownParameter",
               kStages,
               {"model.layers[1].with.strid=2"},
               {"model.layers[1].with.strid", "block 'unit' has no parameter 'strid'",
                "did you mean 'stride'?"}},
        Misuse{"MissingParameter",
               kStages,
               {"~model.layers[1].with.out"},
               {"c.yaml:22:", "model.layers[1]", "block 'unit' needs its parameter 'out'"}},
        Misuse{"MissingForTheRestOnly",
               "    - {name: s, block: unit, repeat: 2, first: {out: 4}}\n"
               "    - {name: f, type: flatten}\n    - {name: fc, type: linear, out_features: 4}\n",
               {},
               {"needs its parameter 'out'", "for the instances after the first"}},
        Misuse{"UnknownBlock",
               kStages,
               {"model.layers[1].block=unti"},
               {"model.layers[1].block", "no block named 'unti'", "did you mean 'unit'?"}},
        Misuse{"ABlockUsingItself",
               kStages,
               {"model.blocks.proj.layers[1]={name: again, block: unit, with: {out: 2}}"},
               {"model.blocks.proj.layers[1].block",
                "block 'unit' uses itself: unit -> proj -> "
                "unit"}},
        Misuse{"ARepeatBeyondTheLayerLimit",
               kStages,
               {"model.layers[2].repeat=1024"},
               {"model.layers[2]", "the model expands to more than 4096 layers"}},
        Misuse{"RepeatsOfLeftOutEntries",
               kStages,
               {"model.blocks.proj.layers=[{name: p, block: proj2, repeat: 1024}]",
                "model.blocks.proj2={layers: [{name: q, block: proj3, repeat: 1024}]}",
                "model.blocks.proj3={layers: [{name: r, type: relu, enabled: false}]}"},
               {"model.layers[2]", "the blocks expand to more than 65536 entries"}},
        Misuse{"ARepeatOfZero",
               kStages,
               {"model.layers[1].repeat=0"},
               {"model.layers[1].repeat", "found 0, expected an integer from 1 to 1024"}},
        Misuse{
            "AnUnknownReference",
            kStages,
            {"model.blocks.unit.layers[0].out_channels=${outs}"},
            {"model.blocks.unit.layers[0].out_channels", "${outs}",
             "the block's parameters: out, project, stride", "in stage1.0, from model.layers[1]"}},
        Misuse{"ALaterLayerOfTheBlock",
               kStages,
               {"model.blocks.unit.layers[0].inputs=[bn]"},
               {"model.blocks.unit.layers[0].inputs[0]",
                "no earlier layer of this block is named 'bn'", "known here: 'input'"}},
        Misuse{"ALayerNamedInput",
               kStages,
               {"model.blocks.unit.layers[1].name=input"},
               {"model.blocks.unit.layers[1].name", "may not be named 'input'"}},
        Misuse{"DuplicateNamesInABlock",
               kStages,
               {"model.blocks.unit.layers[1].name=conv"},
               {"duplicate name 'conv'", "unique within a block"}},
        Misuse{"EnabledNotABoolean",
               kStages,
               {"model.blocks.unit.params.project=sometimes"},
               {"model.blocks.unit.layers[2].enabled",
                "found \"sometimes\", expected true or "
                "false"}},
        // Checked once the parameters are in: the block's line and the expanded layer.
        Misuse{"AValueTheSchemaRefuses",
               kStages,
               {"model.layers[2].with.out=-8"},
               {"c.yaml:13:", "model.blocks.unit.layers[0].out_channels (layer stage2.",
                "from model.layers[2])", "found -8, expected an integer from 1"}},
        Misuse{"AShapeTheGraphRefuses",
               kStages,
               {"model.blocks.unit.layers[0].kernel=30"},
               {"c.yaml:13:",
                "model.blocks.unit.layers[0] (layer stage1.0.conv, from "
                "model.layers[1])",
                "stage1.0.conv (conv2d): input 4x8x8 (padding 1x1) is smaller than kernel "
                "30x30"}},
        Misuse{"AnUnknownKeyInABlockLayer",
               kStages,
               {"model.blocks.unit.layers[1].momentun=0.2"},
               {"model.blocks.unit.layers[1].momentun (layer stage", "unknown key",
                "did you mean 'momentum'?"}}),
    [](const ::testing::TestParamInfo<Misuse>& info) { return info.param.name; });

}  // namespace blocks_test
}  // namespace
}  // namespace runner
