// --set overrides: existing and new keys, list elements, value typing, and where they are
// reported from.
#include "runner/config/overrides.h"

#include <gtest/gtest.h>

#include "runner/config/load_config.h"
#include "test_support.h"

namespace runner {
namespace {

nlohmann::json base() {
  return nlohmann::json::parse(R"({
    "training": {"batch_size": 4, "optimizer": {"type": "sgd"}},
    "model": {"layers": [{"name": "c", "type": "conv2d", "out_channels": 6, "kernel": 5}]}
  })");
}

nlohmann::json applied(const std::string& override_text) {
  nlohmann::json config = base();
  SourceMap map("x.yaml");
  apply_override(config, map, override_text);
  return config;
}

TEST(Overrides, SetsAnExistingKey) {
  EXPECT_EQ(applied("training.batch_size=64")["training"]["batch_size"], 64);
}

TEST(Overrides, CreatesMissingKeysOnTheWay) {
  nlohmann::json config = applied("checkpoint.path=net.safetensors");
  EXPECT_EQ(config["checkpoint"], nlohmann::json({{"path", "net.safetensors"}}));
  config = applied("training.optimizer.momentum=0.9");
  EXPECT_EQ(config["training"]["optimizer"]["momentum"], 0.9);
  EXPECT_EQ(config["training"]["optimizer"]["type"], "sgd");  // siblings kept
}

TEST(Overrides, SetsAListElementsField) {
  nlohmann::json config = applied("model.layers[0].out_channels=12");
  EXPECT_EQ(config["model"]["layers"][0]["out_channels"], 12);
  EXPECT_EQ(config["model"]["layers"][0]["kernel"], 5);
  config = applied("model.layers[0]={name: r, type: relu}");
  EXPECT_EQ(config["model"]["layers"][0], nlohmann::json({{"name", "r"}, {"type", "relu"}}));
}

TEST(Overrides, ValuesAreTypedAsYaml) {
  struct Case {
    std::string text;
    nlohmann::json value;
  };
  for (const Case& c :
       {Case{"64", 64}, Case{"-3", -3}, Case{"0.001", 0.001}, Case{"1e-3", 0.001},
        Case{"true", true}, Case{"False", false}, Case{"[3, 3]", {3, 3}}, Case{"[1,2]", {1, 2}},
        Case{"cuda:1", "cuda:1"}, Case{"adam", "adam"}, Case{"'5'", "5"}, Case{"\"true\"", "true"},
        Case{"", ""}, Case{"null", nullptr}, Case{"a=b", "a=b"},
        Case{"{mean: [0.5], std: [0.25]}", {{"mean", {0.5}}, {"std", {0.25}}}}}) {
    nlohmann::json config = applied("training.x=" + c.text);
    EXPECT_EQ(config["training"]["x"], c.value) << "--set training.x=" << c.text;
  }
  EXPECT_TRUE(applied("training.x=64")["training"]["x"].is_number_integer());
  EXPECT_TRUE(applied("training.x=64.0")["training"]["x"].is_number_float());
}

TEST(Overrides, LaterOverridesWin) {
  nlohmann::json config = base();
  SourceMap map("x.yaml");
  apply_override(config, map, "training.batch_size=8");
  apply_override(config, map, "training.batch_size=16");
  EXPECT_EQ(config["training"]["batch_size"], 16);
}

TEST(Overrides, ErrorsNameTheOverride) {
  struct Case {
    std::string text, message;
  };
  for (const Case& c : {
           Case{"training.batch_size", "--set training.batch_size: expected PATH=VALUE"},
           Case{"=3", "'' is not a field path"},
           Case{"training.=3", "'training.' is not a field path"},
           Case{"model.layers[x]=3", "'model.layers[x]' is not a field path"},
           Case{"model.layers[1].kernel=3", "index 1 is out of range: model.layers has 1 item(s)"},
           Case{"training[0]=1", "cannot index [0]: training is a mapping, not a list"},
           Case{"training.batch_size.x=1",
                "training.batch_size: cannot set key 'x': training.batch_size is a number"},
           Case{"training.x=[1, 2",
                "--set training.x=[1, 2: training.x: cannot read VALUE as YAML"},
       }) {
    nlohmann::json config = base();
    SourceMap map("x.yaml");
    try {
      apply_override(config, map, c.text);
      ADD_FAILURE() << "no error for --set " << c.text;
    } catch (const UserError& error) {
      EXPECT_NE(std::string(error.what()).find(c.message), std::string::npos)
          << "expected: " << c.message << "\nmessage:  " << error.what();
    }
  }
}

TEST(Overrides, SourceMapPointsAtTheOverride) {
  testing::TempDir dir;
  auto file = dir.write("c.yaml",
                        "name: c\n"
                        "training:\n"
                        "  batch_size: 4\n"
                        "  epochs: 1\n"
                        "model:\n"
                        "  layers:\n"
                        "    - {name: c, type: conv2d, out_channels: 6, kernel: [5, 5]}\n");
  ConfigDocument doc =
      read_config(file, {"training.batch_size=64", "model.layers[0].kernel=[3, 3]"});
  SourceLocation batch = doc.source_map.locate("training.batch_size");
  EXPECT_EQ(batch.file, "--set training.batch_size=64");
  EXPECT_EQ(batch.line, 0);
  EXPECT_EQ(batch.path, "training.batch_size");
  // Below an overridden value, the override too (not the file's old [5, 5]).
  EXPECT_EQ(doc.source_map.locate("model.layers[0].kernel[1]").file,
            "--set model.layers[0].kernel=[3, 3]");
  // Untouched fields keep their place in the file.
  SourceLocation epochs = doc.source_map.locate("training.epochs");
  EXPECT_EQ(epochs.file, file.string());
  EXPECT_EQ(epochs.line, 4);
  EXPECT_EQ(epochs.column, 11);
  EXPECT_EQ(doc.json["training"]["batch_size"], 64);
  EXPECT_EQ(doc.json["model"]["layers"][0]["kernel"], nlohmann::json({3, 3}));
  // Keys an override creates on its way come from it too.
  ConfigDocument created = read_config(file, {"dataset.normalize.std=[1]"});
  EXPECT_EQ(created.source_map.locate("dataset.normalize.mean").file,
            "--set dataset.normalize.std=[1]");
}

TEST(Overrides, LoadExperimentAppliesThemBeforeValidation) {
  auto config = testing::source_dir() / "configs" / "tiny_synthetic.yaml";
  Experiment e = load_experiment(
      config,
      {"training.batch_size=64", "device=cuda:1", "training.optimizer={type: adam, lr: 0.0003}",
       "checkpoint.path=tiny.safetensors", "model.layers[0].out_channels=7"});
  EXPECT_EQ(e.training.batch_size, 64);
  EXPECT_EQ(e.device.name(), "cuda:1");
  EXPECT_EQ(e.training.optimizer.type, OptimizerType::adam);
  EXPECT_DOUBLE_EQ(e.training.optimizer.lr, 0.0003);
  EXPECT_EQ(e.checkpoint.path, "tiny.safetensors");
  EXPECT_EQ(e.model.layers[0].attributes["out_channels"], 7);
  EXPECT_EQ(e.resolved["training"]["batch_size"], 64);
  // An override that breaks the schema is reported at the override, not in the file.
  try {
    load_experiment(config, {"training.optimizer.type=adam"});  // momentum is sgd-only
    ADD_FAILURE() << "no error";
  } catch (const UserError& error) {
    std::string message = error.what();
    EXPECT_NE(message.find("tiny_synthetic.yaml:"), std::string::npos) << message;
    EXPECT_NE(message.find("training.optimizer.momentum: unknown key"), std::string::npos)
        << message;
  }
}

TEST(Overrides, TildeDeletesAKeyOrAListItem) {
  nlohmann::json config = base();
  SourceMap map("x.yaml");
  apply_override(config, map, "training.optimizer.momentum=0.9");
  apply_override(config, map, "~training.optimizer.momentum");
  EXPECT_EQ(config["training"]["optimizer"], nlohmann::json({{"type", "sgd"}}));
  EXPECT_EQ(map.find("training.optimizer.momentum"), nullptr);
  apply_override(config, map, "~model.layers[0]");
  EXPECT_EQ(config["model"]["layers"], nlohmann::json::array());
  EXPECT_EQ(map.locate("model.layers").file, "--set ~model.layers[0]");
  apply_override(config, map, "~training.optimizer.type=sgd");  // Hydra's ~key=value: it matches
  EXPECT_FALSE(config["training"]["optimizer"].contains("type"));
  // Hydra's + and ++ prefixes: --set adds and sets already.
  apply_override(config, map, "+training.optimizer.type=adam");
  apply_override(config, map, "++training.epochs=3");
  EXPECT_EQ(config["training"]["optimizer"]["type"], "adam");
  EXPECT_EQ(config["training"]["epochs"], 3);
  for (const auto& [text, message] : std::vector<std::pair<std::string, std::string>>{
           {"~training.nothing",
            "--set ~training.nothing: training.nothing: there is no such "
            "field to delete"},
           {"~training.batch_size=5",
            "training.batch_size: found 4, expected 5 (the value this "
            "deletion names)"},
           {"~training..x", "'training..x' is not a field path"}}) {
    try {
      apply_override(config, map, text);
      ADD_FAILURE() << "no error for --set " << text;
    } catch (const UserError& error) {
      EXPECT_NE(std::string(error.what()).find(message), std::string::npos) << error.what();
    }
  }
}

TEST(Overrides, SwitchingSgdToAdamWithDeletionOrAWholeMapping) {
  auto config = testing::source_dir() / "configs" / "tiny_synthetic.yaml";
  Experiment deleted =
      load_experiment(config, {"training.optimizer.type=adam", "~training.optimizer.momentum"});
  EXPECT_EQ(deleted.training.optimizer.type, OptimizerType::adam);
  EXPECT_FALSE(deleted.resolved["training"]["optimizer"].contains("momentum"));
  for (const char* replace : {"training.optimizer={type: adam, lr: 0.001}",
                              "training.optimizer=!replace {type: adam, lr: 0.001}"}) {
    Experiment replaced = load_experiment(config, {replace});
    EXPECT_EQ(replaced.training.optimizer.type, OptimizerType::adam) << replace;
    EXPECT_DOUBLE_EQ(replaced.training.optimizer.lr, 0.001) << replace;
    EXPECT_FALSE(replaced.resolved["training"]["optimizer"].contains("momentum")) << replace;
  }
}

}  // namespace
}  // namespace runner
