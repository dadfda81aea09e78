// The schema's layer registry is consistent (one fragment and one if/then per kind), and every
// kind accepts its documented keys and rejects unknown ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "runner/config/load_config.h"
#include "runner/config/schema_file.h"
#include "test_support.h"

namespace runner {
namespace {

// The paths below `node` of integers with no maximum ("type" integer or a list holding it,
// without maximum, exclusiveMaximum, enum or const).
void unbounded_integers(const nlohmann::json& node, const std::string& path,
                        std::vector<std::string>& found) {
  if (node.is_object()) {
    const auto type = node.find("type");
    const bool integer =
        type != node.end() &&
        (*type == "integer" ||
         (type->is_array() && std::find(type->begin(), type->end(), "integer") != type->end()));
    if (integer && !node.contains("maximum") && !node.contains("exclusiveMaximum") &&
        !node.contains("enum") && !node.contains("const")) {
      found.push_back(path.empty() ? "/" : path);
    }
    for (const auto& [key, child] : node.items())
      unbounded_integers(child, path + "/" + key, found);
  } else if (node.is_array()) {
    for (std::size_t i = 0; i < node.size(); ++i) {
      unbounded_integers(node[i], path + "/" + std::to_string(i), found);
    }
  }
}

// Issue 24: a sweep's benchmark.steps of 2^31 became 0 steps in an int. Every integer of every
// schema (configs, sweeps and their launcher, and the reports and summaries read back) has a
// maximum its C++ type holds.
TEST(Schema, EveryIntegerHasAMaximum) {
  int schemas = 0;
  for (const auto& entry : std::filesystem::directory_iterator(schema_directory())) {
    if (entry.path().extension() != ".json") continue;
    ++schemas;
    std::vector<std::string> found;
    unbounded_integers(nlohmann::json(load_schema(entry.path().filename().string())), "", found);
    EXPECT_TRUE(found.empty()) << entry.path().filename().string() << ": no maximum at "
                               << ::testing::PrintToString(found);
  }
  EXPECT_GE(schemas, 4);
}

TEST(Schema, EveryLayerKindHasOneClosedFragmentAndOneIfThen) {
  nlohmann::ordered_json schema = load_schema("experiment.schema.json");
  const auto& definitions = schema["definitions"];
  const auto& layer = definitions["layer"];
  ASSERT_TRUE(layer["properties"]["type"].contains("enum"));
  for (const auto& kind : layer["properties"]["type"]["enum"]) {
    std::string name = kind.get<std::string>();
    ASSERT_TRUE(definitions.contains(name)) << "no definitions." << name;
    EXPECT_EQ(definitions[name]["additionalProperties"], false) << name;
    for (const char* common : {"name", "type", "inputs"}) {
      EXPECT_TRUE(definitions[name]["properties"].contains(common)) << name << " lacks " << common;
    }
    int selectors = 0;
    for (const auto& part : layer["allOf"]) {
      if (part["if"]["properties"]["type"]["const"] == name) {
        ++selectors;
        EXPECT_EQ(part["then"]["$ref"], "#/definitions/" + name);
        EXPECT_EQ(part["if"]["required"], nlohmann::ordered_json({"type"})) << name;
      }
    }
    EXPECT_EQ(selectors, 1) << name;
  }
  EXPECT_EQ(layer["allOf"].size(), layer["properties"]["type"]["enum"].size());
}

const char* every_kind =
    "name: all_kinds\n"
    "dataset: {name: cifar10, train_limit: 100, test_limit: 10, url: http://example.com/c.tgz}\n"
    "model:\n"
    "  width: 0.5\n"
    "  init: kaiming_normal\n"
    "  layers:\n"
    "    - {name: a, type: conv2d, out_channels: 4, kernel: [3, 5], stride: [1, 2], padding: [1, "
    "0], bias: false, init: default}\n"
    "    - {name: b, type: relu}\n"
    "    - {name: c, type: conv2d, out_channels: 4, kernel: 1, dilation: [1, 2], groups: 2, "
    "inputs: [b]}\n"
    "    - {name: d, type: add, inputs: [b, c]}\n"
    "    - {name: e, type: avg_pool2d, kernel: 2, stride: 2, padding: 0}\n"
    "    - {name: f, type: max_pool2d, kernel: [2, 2]}\n"
    "    - {name: g, type: flatten}\n"
    "    - {name: h, type: linear, out_features: 10, bias: true, init: kaiming_normal}\n"
    "    - {name: i, type: batch_norm2d, eps: 0.001, momentum: 0.2, affine: false, inputs: [a]}\n"
    "    - {name: j, type: dropout, p: 0.25}\n"
    "    - {name: k, type: leaky_relu, negative_slope: 0.1}\n"
    "    - {name: l, type: gelu}\n"
    "    - {name: m, type: sigmoid}\n"
    "    - {name: n, type: tanh}\n"
    "    - {name: o, type: global_avg_pool2d, flatten: true}\n"
    "    - {name: p, type: concat, inputs: [a, c]}\n"
    "    - {name: q, type: gelu, approximate: tanh}\n"
    "    - {name: r, type: silu}\n"
    "    - {name: s, type: relu6}\n"
    "    - {name: t, type: hardswish}\n"
    "    - {name: u, type: hardsigmoid}\n"
    "    - {name: v, type: mul, inputs: [b, c]}\n"
    "    - {name: w, type: scale, init_value: 0.5}\n"
    "    - {name: x, type: layer_norm, eps: 0.001, affine: false, inputs: [a]}\n"
    "    - {name: y, type: group_norm, groups: 2, eps: 0.001, affine: true, inputs: [c]}\n"
    "    - {name: z, type: to_tokens, inputs: [a]}\n"
    "    - {name: ca, type: class_token}\n"
    "    - {name: cb, type: position_embedding}\n"
    "    - {name: cc, type: token_select, select: mean}\n"
    "    - {name: cd, type: drop_path, p: 0.1}\n"
    "    - {name: ce, type: self_attention, heads: 2, dropout: 0.1, bias: false, init: default, "
    "inputs: [ca]}\n"
    "training:\n"
    "  epochs: 3\n"
    "  batch_size: 8\n"
    "  eval_batch_size: 100\n"
    "  loss: cross_entropy\n"
    "  optimizer: {type: sgd, lr: 0.1, momentum: 0.9, dampening: 0, weight_decay: 0.0005, "
    "nesterov: true}\n"
    "  log_every: 10\n"
    "  threads: 4\n"
    "seed: 12345678901234\n"
    "device: cuda:1\n"
    "checkpoint: {path: out/net.safetensors}\n";

TEST(Schema, EveryKindAndEveryKeyIsAccepted) {
  testing::TempDir dir;
  Experiment e = load_experiment(dir.write("all.yaml", every_kind), {});
  ASSERT_EQ(e.model.layers.size(), 31u);
  EXPECT_DOUBLE_EQ(e.model.width, 0.5);
  EXPECT_EQ(e.model.init, WeightInit::kaiming_normal);
  EXPECT_EQ(e.model.layers[0].attributes["init"], "default");
  EXPECT_EQ(e.model.layers[0].attributes["kernel"], nlohmann::json({3, 5}));
  EXPECT_EQ(e.model.layers[3].inputs, std::vector<std::string>({"b", "c"}));
  EXPECT_EQ(e.model.layers[3].where.line, 10);
  EXPECT_EQ(e.dataset.train_limit, 100);
  EXPECT_EQ(e.dataset.url, "http://example.com/c.tgz");
  EXPECT_EQ(e.seed, 12345678901234u);
  EXPECT_EQ(e.device.name(), "cuda:1");
  EXPECT_TRUE(e.training.optimizer.nesterov);
  EXPECT_DOUBLE_EQ(e.training.optimizer.weight_decay, 0.0005);
  EXPECT_EQ(e.training.threads, 4);
  EXPECT_EQ(e.training.eval_batch_size, 100);
  EXPECT_EQ(e.checkpoint.path, "out/net.safetensors");
}

TEST(Schema, EveryKindRejectsAnUnknownKey) {
  nlohmann::ordered_json schema = load_schema("experiment.schema.json");
  testing::TempDir dir;
  std::string base = every_kind;
  for (const auto& kind : schema["definitions"]["layer"]["properties"]["type"]["enum"]) {
    std::string name = kind.get<std::string>();
    // The first layer of that kind in `every_kind` gets an extra key.
    std::size_t at = base.find("type: " + name);
    ASSERT_NE(at, std::string::npos) << name << " is missing from the every_kind config";
    std::string text = base;
    text.insert(at, "bogus: 1, ");
    try {
      load_experiment(dir.write(name + ".yaml", text), {});
      ADD_FAILURE() << name << " accepted an unknown key";
    } catch (const UserError& error) {
      EXPECT_NE(
          std::string(error.what()).find(".bogus: unknown key (known keys: name, type, inputs"),
          std::string::npos)
          << error.what();
    }
  }
}

}  // namespace
}  // namespace runner
