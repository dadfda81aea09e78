// The configs under configs/ load, validate and resolve, with defaults filled in.
#include <gtest/gtest.h>

#include <cstdlib>

#include "runner/config/load_config.h"
#include "test_support.h"

namespace runner {
namespace {

std::filesystem::path config_path(const std::string& name) {
  return testing::source_dir() / "configs" / name;
}

class ShippedConfig : public ::testing::TestWithParam<std::string> {};

TEST_P(ShippedConfig, LoadsAndItsResolvedJsonValidatesAgain) {
  Experiment e = load_experiment(config_path(GetParam()), {});
  EXPECT_FALSE(e.name.empty());
  EXPECT_FALSE(e.model.layers.empty());
  // The resolved JSON is itself a valid config (every default spelled out, nothing extra).
  ConfigDocument again{"resolved", e.resolved, SourceMap("resolved")};
  EXPECT_NO_THROW(validate_config(again));
  Experiment twice = resolve_experiment(again);
  EXPECT_EQ(twice.resolved, e.resolved);
}

INSTANTIATE_TEST_SUITE_P(Configs, ShippedConfig,
                         ::testing::Values("lenet_cifar.yaml", "lenet_fashion_mnist.yaml",
                                           "resnet_tiny.yaml", "tiny_synthetic.yaml",
                                           "variants/lenet_fashion_mnist_adam.yaml"));

TEST(ShippedConfigs, TheAdamVariantIsTheFashionMnistConfigWithAdam) {
  ::unsetenv("FASHION_MNIST_ROOT");
  Experiment base = load_experiment(config_path("lenet_fashion_mnist.yaml"), {});
  Experiment adam = load_experiment(config_path("variants/lenet_fashion_mnist_adam.yaml"), {});
  EXPECT_EQ(adam.name, "lenet_fashion_mnist_adam");
  EXPECT_EQ(adam.training.optimizer.type, OptimizerType::adam);
  EXPECT_FALSE(adam.resolved["training"]["optimizer"].contains("momentum"));
  EXPECT_EQ(adam.checkpoint.path, "lenet_fashion_mnist_adam.safetensors");
  EXPECT_EQ(adam.resolved["dataset"], base.resolved["dataset"]);
  EXPECT_EQ(adam.resolved["model"], base.resolved["model"]);
  EXPECT_EQ(adam.resolved["training"]["epochs"], base.resolved["training"]["epochs"]);
  // A layer's location is the base file's, where it is written.
  EXPECT_NE(adam.model.layers[0].where.file.find("lenet_fashion_mnist.yaml"), std::string::npos);
  ::setenv("FASHION_MNIST_ROOT", "/elsewhere", 1);
  Experiment moved = load_experiment(config_path("variants/lenet_fashion_mnist_adam.yaml"), {});
  ::unsetenv("FASHION_MNIST_ROOT");
  EXPECT_EQ(moved.dataset.root, "/elsewhere");
}

TEST(ShippedConfigs, LenetCifarIsThePyTorchTutorial) {
  Experiment e = load_experiment(config_path("lenet_cifar.yaml"), {});
  EXPECT_EQ(e.name, "lenet_cifar");
  EXPECT_EQ(e.device, "auto");
  EXPECT_EQ(e.dataset.name, "cifar10");
  EXPECT_TRUE(e.dataset.download);
  EXPECT_EQ(e.dataset.normalize.mean, std::vector<float>({0.5f, 0.5f, 0.5f}));
  ASSERT_EQ(e.model.layers.size(), 12u);
  const LayerSpec& conv1 = e.model.layers[0];
  EXPECT_EQ(conv1.name, "conv1");
  EXPECT_EQ(conv1.type, "conv2d");
  EXPECT_TRUE(conv1.inputs.empty());
  EXPECT_EQ(conv1.attributes, nlohmann::json({{"out_channels", 6}, {"kernel", 5}}));
  EXPECT_EQ(conv1.where.path, "model.layers[0]");
  EXPECT_EQ(conv1.where.line, 14);
  EXPECT_EQ(conv1.where.column, 7);
  EXPECT_NE(conv1.where.file.find("lenet_cifar.yaml"), std::string::npos);
  EXPECT_EQ(e.model.layers[11].attributes, nlohmann::json({{"out_features", 10}}));
  EXPECT_EQ(e.training.epochs, 2);
  EXPECT_EQ(e.training.batch_size, 4);
  EXPECT_EQ(e.training.eval_batch_size, 1000);  // default
  EXPECT_EQ(e.training.optimizer.type, OptimizerType::sgd);
  EXPECT_DOUBLE_EQ(e.training.optimizer.lr, 0.001);
  EXPECT_DOUBLE_EQ(e.training.optimizer.momentum, 0.9);
  EXPECT_EQ(e.training.log_every, 2000);
  EXPECT_EQ(e.checkpoint.path, "cifar_net.safetensors");
  // Defaults appear in the resolved JSON too.
  EXPECT_EQ(e.resolved["training"]["eval_batch_size"], 1000);
  EXPECT_EQ(e.resolved["training"]["optimizer"]["nesterov"], false);
  EXPECT_EQ(e.resolved["dataset"]["train_limit"], 0);
  EXPECT_FALSE(e.resolved["training"]["optimizer"].contains("beta1"));  // sgd only
}

TEST(ShippedConfigs, FashionMnistHasOneChannelAndPaddedConv1) {
  Experiment e = load_experiment(config_path("lenet_fashion_mnist.yaml"), {});
  EXPECT_EQ(e.dataset.name, "fashion_mnist");
  EXPECT_EQ(e.dataset.root, "/usr/share/datasets/fashion-mnist");
  EXPECT_FALSE(e.dataset.download);
  EXPECT_EQ(e.dataset.normalize.std, std::vector<float>({0.5f}));
  EXPECT_EQ(e.model.layers[0].attributes["padding"], 2);
  EXPECT_EQ(e.checkpoint.path, "fashion_net.safetensors");
}

TEST(ShippedConfigs, ResnetTinyUsesInputsAndAdd) {
  Experiment e = load_experiment(config_path("resnet_tiny.yaml"), {});
  auto add = std::find_if(e.model.layers.begin(), e.model.layers.end(),
                          [](const LayerSpec& layer) { return layer.type == "add"; });
  ASSERT_NE(add, e.model.layers.end());
  EXPECT_EQ(add->inputs, std::vector<std::string>({"block_conv2", "stem_relu"}));
  EXPECT_TRUE(add->attributes.empty());
  EXPECT_EQ(e.resolved["model"]["layers"][5]["inputs"],
            nlohmann::json({"block_conv2", "stem_relu"}));
  EXPECT_EQ(e.training.batch_size, 32);
  EXPECT_EQ(e.training.epochs, 1);
  EXPECT_DOUBLE_EQ(e.model.width, 1.0);  // default
}

TEST(ShippedConfigs, TinySyntheticFillsDatasetDefaults) {
  Experiment e = load_experiment(config_path("tiny_synthetic.yaml"), {});
  EXPECT_EQ(e.device, "cpu");
  EXPECT_EQ(e.dataset.name, "synthetic");
  EXPECT_EQ(e.dataset.synthetic.height, 16);
  EXPECT_EQ(e.dataset.synthetic.train_count, 1024);
  EXPECT_EQ(e.dataset.synthetic.test_count, 128);
  EXPECT_EQ(e.dataset.normalize.mean, std::vector<float>({0.5f, 0.5f, 0.5f}));  // 3 channels
  EXPECT_EQ(e.training.batch_size, 16);
  EXPECT_TRUE(e.checkpoint.path.empty());
  EXPECT_EQ(e.resolved["checkpoint"]["path"], "");
  EXPECT_EQ(e.resolved["dataset"]["synthetic"]["classes"], 10);
}

TEST(Defaults, PerDatasetRootAndNormalize) {
  testing::TempDir dir;
  const std::string layers =
      "model: {layers: [{name: flat, type: flatten}, {name: fc, type: linear, out_features: 10}]}\n"
      "training: {}\n";
  struct Case {
    std::string dataset, root;
    std::size_t channels;
  };
  for (const Case& c : {Case{"cifar10", "data/cifar-10-batches-bin", 3},
                        Case{"fashion_mnist", "/usr/share/datasets/fashion-mnist", 1},
                        Case{"mnist", "data/mnist", 1}}) {
    auto file =
        dir.write(c.dataset + ".yaml", "name: d\ndataset: {name: " + c.dataset + "}\n" + layers);
    Experiment e = load_experiment(file, {});
    EXPECT_EQ(e.dataset.root, c.root) << c.dataset;
    EXPECT_EQ(e.dataset.normalize.mean, std::vector<float>(c.channels, 0.5f)) << c.dataset;
    EXPECT_EQ(e.dataset.normalize.std, std::vector<float>(c.channels, 0.5f)) << c.dataset;
    EXPECT_EQ(e.training.eval_batch_size, 1000);
    EXPECT_EQ(e.training.optimizer.type, OptimizerType::sgd);
    EXPECT_EQ(e.seed, 0u);
    EXPECT_EQ(e.device, "auto");
    EXPECT_TRUE(e.checkpoint.path.empty());
  }
}

TEST(Defaults, SyntheticChannelsDecideNormalizeLength) {
  testing::TempDir dir;
  auto file = dir.write("s.yaml",
                        "name: s\n"
                        "dataset: {name: synthetic, synthetic: {channels: 2},\n"
                        "          normalize: {mean: [0.1, 0.2], std: [0.3, 0.4]}}\n"
                        "model: {layers: [{name: flat, type: flatten}]}\n"
                        "training: {optimizer: {type: adam}}\n");
  Experiment e = load_experiment(file, {});
  EXPECT_EQ(e.dataset.synthetic.channels, 2);
  EXPECT_EQ(e.dataset.normalize.mean, std::vector<float>({0.1f, 0.2f}));
  EXPECT_EQ(e.resolved["dataset"]["normalize"]["mean"], nlohmann::json({0.1, 0.2}));
  EXPECT_EQ(e.training.optimizer.type, OptimizerType::adam);
  EXPECT_DOUBLE_EQ(e.training.optimizer.beta2, 0.999);
  EXPECT_TRUE(e.resolved["training"]["optimizer"].contains("eps"));
  EXPECT_FALSE(e.resolved["training"]["optimizer"].contains("momentum"));
}

TEST(SchemaDirectory, EnvironmentVariableOverridesTheBuiltInPath) {
  testing::TempDir dir;
  auto file = dir.write("x.yaml", "name: x\n");
  ConfigDocument doc = read_config(file, {});
  const char* previous = std::getenv("RUNNER_SCHEMA_DIR");
  std::string saved = previous ? previous : "";
  ::setenv("RUNNER_SCHEMA_DIR", dir.path().c_str(), 1);
  try {
    validate_config(doc);
    ADD_FAILURE() << "expected a UserError for the missing schema";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("schema not found"), std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find(dir.path().string()), std::string::npos)
        << error.what();
  }
  if (previous) {
    ::setenv("RUNNER_SCHEMA_DIR", saved.c_str(), 1);
  } else {
    ::unsetenv("RUNNER_SCHEMA_DIR");
  }
}

}  // namespace
}  // namespace runner
