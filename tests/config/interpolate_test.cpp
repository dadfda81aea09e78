// ${env:VAR} and ${path.to.key} in config values: types kept, defaults, cycles, and errors
// naming the field that holds the reference.
#include "runner/config/interpolate.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "runner/config/load_config.h"
#include "test_support.h"

namespace runner {
namespace {

nlohmann::json interpolated(const std::string& json_text) {
  nlohmann::json config = nlohmann::json::parse(json_text);
  interpolate_config(config, SourceMap("x.yaml"));
  return config;
}

std::string error_of(const std::string& json_text) {
  try {
    interpolated(json_text);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(Interpolate, AWholeReferenceKeepsTheValuesType) {
  nlohmann::json config = interpolated(
      R"({"training": {"batch_size": 64, "eval_batch_size": "${training.batch_size}",
          "lr": "${base.lr}"}, "base": {"lr": 0.5, "layers": [1, 2]}, "copy": "${base}",
          "item": "${base.layers[1]}"})");
  EXPECT_EQ(config["training"]["eval_batch_size"], 64);
  EXPECT_EQ(config["training"]["lr"], 0.5);
  EXPECT_EQ(config["copy"], nlohmann::json({{"lr", 0.5}, {"layers", {1, 2}}}));
  EXPECT_EQ(config["item"], 2);
}

TEST(Interpolate, ReferencesInsideTextAreFormatted) {
  nlohmann::json config = interpolated(
      R"({"name": "lenet", "width": 2, "on": true,
          "checkpoint": "runs/${name}-w${width}-${on}.safetensors"})");
  EXPECT_EQ(config["checkpoint"], "runs/lenet-w2-true.safetensors");
}

TEST(Interpolate, ChainsOfReferencesResolve) {
  nlohmann::json config = interpolated(R"({"a": "${b}", "b": "${c}", "c": 3})");
  EXPECT_EQ(config["a"], 3);
  EXPECT_EQ(config["b"], 3);
}

TEST(Interpolate, EnvironmentVariablesAndDefaults) {
  ::setenv("RUNNER_TEST_ROOT", "/data/sets", 1);
  ::setenv("RUNNER_TEST_EPOCHS", "4", 1);
  ::unsetenv("RUNNER_TEST_UNSET");
  nlohmann::json config = interpolated(
      R"({"root": "${env:RUNNER_TEST_ROOT}/cifar", "epochs": "${env:RUNNER_TEST_EPOCHS}",
          "workers": "${oc.env:RUNNER_TEST_UNSET,2}", "device": "${env:RUNNER_TEST_UNSET,cpu}"})");
  EXPECT_EQ(config["root"], "/data/sets/cifar");
  EXPECT_EQ(config["epochs"], 4);  // read as a YAML plain scalar
  EXPECT_EQ(config["workers"], 2);
  EXPECT_EQ(config["device"], "cpu");
}

TEST(Interpolate, AnUnsetVariableWithoutDefaultNamesTheField) {
  ::unsetenv("RUNNER_TEST_UNSET");
  std::string message = error_of(R"({"dataset": {"root": "${env:RUNNER_TEST_UNSET}"}})");
  EXPECT_NE(message.find("dataset.root"), std::string::npos) << message;
  EXPECT_NE(message.find("RUNNER_TEST_UNSET is not set"), std::string::npos) << message;
  EXPECT_NE(message.find("${env:RUNNER_TEST_UNSET,VALUE}"), std::string::npos) << message;
}

TEST(Interpolate, CyclesAndUnknownFieldsAreErrors) {
  std::string message = error_of(R"({"a": "${b}", "b": "${a}"})");
  EXPECT_NE(message.find("cycle: a -> b -> a"), std::string::npos) << message;
  message = error_of(R"({"m": {"x": "${m}"}})");
  EXPECT_NE(message.find("cycle"), std::string::npos) << message;
  message = error_of(R"({"training": {"lr": "${training.learning_rate}"}})");
  EXPECT_NE(message.find("training.lr: ${training.learning_rate} refers to"), std::string::npos)
      << message;
  message = error_of(R"({"root": "${HOME}"})");
  EXPECT_NE(message.find("${env:HOME}"), std::string::npos) << message;
  message = error_of(R"({"name": "a-${b", "b": 1})");
  EXPECT_NE(message.find("no closing"), std::string::npos) << message;
  message = error_of(R"({"name": "a-${b}", "b": [1]})");
  EXPECT_NE(message.find("a list, which cannot be part of a text"), std::string::npos) << message;
}

TEST(Interpolate, ErrorsPointAtTheFileAndLineOfTheReference) {
  testing::TempDir tmp;
  auto file = tmp.write("c.yaml", "name: x\ntraining:\n  lr: ${nope}\n");
  try {
    read_config(file, {});
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find(file.string() + ":3:7: training.lr"), std::string::npos) << message;
  }
}

TEST(Interpolate, ReferencesSeeOverridesAndTheComposedConfig) {
  testing::TempDir tmp;
  tmp.write("base.yaml", "training: {batch_size: 8}\n");
  auto file = tmp.write(
      "top.yaml", "include: base.yaml\ntraining:\n  eval_batch_size: ${training.batch_size}\n");
  ConfigDocument doc = read_config(file, {"training.batch_size=32"});
  EXPECT_EQ(doc.json["training"]["eval_batch_size"], 32);
}

// Issue 24: texts that arrive through references meet the limits of texts in the file, and
// chains of references are bounded, so no input overflows the stack or grows without bound.
TEST(Interpolate, ALongEnvironmentVariableIsRefusedAfterItIsSubstituted) {
  ::setenv("RUNNER_TEST_LONG", std::string(30'000, 'a').c_str(), 1);
  std::string message = error_of(R"({"name": "${env:RUNNER_TEST_LONG}"})");
  EXPECT_NE(message.find("name: the environment variable RUNNER_TEST_LONG is 30000 characters"),
            std::string::npos)
      << message;
  message = error_of(R"({"model": {"layers": [{"name": "x${env:RUNNER_TEST_LONG}"}]}})");
  EXPECT_NE(message.find("model.layers[0].name"), std::string::npos) << message;
  ::unsetenv("RUNNER_TEST_LONG");
}

TEST(Interpolate, AVariableThatIsNotUtf8IsRefused) {
  ::setenv("RUNNER_TEST_LATIN1", "caf\xe9", 1);
  std::string message = error_of(R"({"dataset": {"root": "/d/${env:RUNNER_TEST_LATIN1}"}})");
  EXPECT_NE(message.find("dataset.root: the environment variable RUNNER_TEST_LATIN1 is not UTF-8"),
            std::string::npos)
      << message;
  ::unsetenv("RUNNER_TEST_LATIN1");
}

TEST(Interpolate, TextsThatDoubleAtEveryLevelStopAtTheTextLimit) {
  nlohmann::json config = {{"a0", "0123456789abcdef"}};
  for (int level = 1; level <= 60; ++level) {
    config[fmt::format("a{}", level)] = fmt::format("${{a{}}}${{a{}}}", level - 1, level - 1);
  }
  std::string message = error_of(config.dump());
  EXPECT_NE(message.find("a9: the text after its references are replaced is 8192 characters"),
            std::string::npos)
      << message;
}

std::string chain_of_references(int links) {
  nlohmann::json config = {{"f0", 7}};
  for (int i = 1; i <= links; ++i) config[fmt::format("f{}", i)] = fmt::format("${{f{}}}", i - 1);
  return config.dump();
}

TEST(Interpolate, LongChainsOfReferencesAreRefusedNotFollowedDeep) {
  EXPECT_EQ(interpolated(chain_of_references(200))["f200"], 7);
  std::string message = error_of(chain_of_references(12'000));
  EXPECT_NE(message.find("the references form a chain of more than 256 fields"), std::string::npos)
      << message;
}

}  // namespace
}  // namespace runner
