// The configs under configs/ load, validate and resolve, with defaults filled in, and build
// their graphs; every one of them is a seed of the fuzzer's corpus.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "runner/config/load_config.h"
#include "runner/data/augmentation.h"
#include "runner/graph/dataset_geometry.h"
#include "runner/graph/graph.h"
#include "test_support.h"

namespace runner {
namespace {

std::filesystem::path config_path(const std::string& name) {
  return testing::source_dir() / "configs" / name;
}

// Every experiment config under configs/, as paths relative to it, listed from the folder (so a
// new config is tested without being named here). configs/sweeps/ holds sweep files, which
// tests/sweep reads; configs/parts/ holds pieces that configs list in `defaults:`.
std::vector<std::string> shipped_experiment_configs() {
  const std::filesystem::path root = testing::source_dir() / "configs";
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".yaml") continue;
    const std::string relative = entry.path().lexically_relative(root).generic_string();
    if (relative.rfind("sweeps/", 0) != 0 && relative.rfind("parts/", 0) != 0) {
      names.push_back(relative);
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string file_bytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
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

TEST_P(ShippedConfig, BuildsItsGraphForItsDataset) {
  Experiment e = load_experiment(config_path(GetParam()), {});
  // A format of image files takes its classes from the folders: give it as many as the model's
  // output layer (the user's own folder is not shipped).
  testing::TempDir folder;
  if (e.dataset.files.image.height > 0) {
    const int outputs = e.model.layers.back().attributes.value("out_features", 0);
    for (int k = 0; k < outputs; ++k) {
      std::filesystem::create_directories(folder / ("train/class" + std::to_string(k)));
    }
    e.dataset.root = folder.path().string();
  }
  const DatasetGeometry geometry = dataset_geometry(e.dataset);
  Graph graph = build_graph(e.model, geometry.image, geometry.classes);
  EXPECT_EQ(graph.output().output, (Shape{geometry.classes, 1, 1, true}));
  EXPECT_GT(graph.parameter_count(), 0);
}

// The fuzzer starts from every shipped config (tests/fuzz/make_seeds.py copies them).
TEST_P(ShippedConfig, IsASeedOfTheFuzzCorpus) {
  const std::string bytes = file_bytes(config_path(GetParam()));
  bool found = false;
  for (const auto& entry : std::filesystem::directory_iterator(testing::source_dir() / "tests" /
                                                               "fuzz" / "corpus-config")) {
    found = found || file_bytes(entry.path()) == bytes;
  }
  EXPECT_TRUE(found) << "configs/" << GetParam()
                     << " is not in tests/fuzz/corpus-config: run tests/fuzz/make_seeds.py";
}

INSTANTIATE_TEST_SUITE_P(Configs, ShippedConfig, ::testing::ValuesIn(shipped_experiment_configs()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param.substr(0, info.param.size() - 5);
                           std::replace_if(
                               name.begin(), name.end(),
                               [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); },
                               '_');
                           return name;
                         });

TEST(ShippedConfigs, AreListedFromTheFolder) {
  const std::vector<std::string> names = shipped_experiment_configs();
  for (const char* expected :
       {"lenet_cifar.yaml", "lenet_fashion_mnist.yaml", "resnet8_cifar.yaml",
        "resnet8_fashion_mnist.yaml", "resnet_tiny.yaml", "tiny_resnet_synthetic.yaml",
        "tiny_synthetic.yaml", "bench/lenet_cifar_synthetic.yaml",
        "bench/resnet8_cifar_synthetic.yaml", "variants/lenet_fashion_mnist_adam.yaml"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  }
  for (const std::string& name : names) EXPECT_NE(name.rfind("sweeps/", 0), 0u) << name;
}

// ResNet-8 (He et al.'s CIFAR ResNet, one basic block per stage) and the recipe of the issue:
// Nesterov SGD lr 0.1, weight decay 5e-4, batch 128, one epoch of warm-up from 0 then cosine
// to 0, label smoothing 0.1, random crop from a 4-pixel pad and flips.
void expect_resnet8_recipe(const Experiment& e) {
  const TrainingSpec& t = e.training;
  EXPECT_EQ(t.batch_size, 128);
  EXPECT_EQ(t.epochs, 20);
  EXPECT_DOUBLE_EQ(t.label_smoothing, 0.1);
  EXPECT_EQ(t.optimizer.type, OptimizerType::sgd);
  EXPECT_DOUBLE_EQ(t.optimizer.lr, 0.1);
  EXPECT_DOUBLE_EQ(t.optimizer.momentum, 0.9);
  EXPECT_TRUE(t.optimizer.nesterov);
  EXPECT_DOUBLE_EQ(t.optimizer.weight_decay, 5e-4);
  EXPECT_EQ(t.schedule.type, ScheduleType::cosine);
  EXPECT_DOUBLE_EQ(t.schedule.min_lr, 0);
  EXPECT_DOUBLE_EQ(t.schedule.warmup_epochs, 1);
  EXPECT_DOUBLE_EQ(t.schedule.warmup_start_factor, 0);
  ASSERT_EQ(e.dataset.augment.size(), 2u);
  EXPECT_EQ(e.dataset.augment[0].kind, "random_crop");
  EXPECT_EQ(e.dataset.augment[0].op->pixel_move()->padding, 4);
  EXPECT_EQ(e.dataset.augment[1].kind, "horizontal_flip");
  EXPECT_DOUBLE_EQ(e.dataset.augment[1].op->pixel_move()->p, 0.5);
}

TEST(ShippedConfigs, Resnet8CifarIsTheCifarResNetWithTheRecipe) {
  Experiment e = load_experiment(config_path("resnet8_cifar.yaml"), {});
  expect_resnet8_recipe(e);
  EXPECT_EQ(e.dataset.name, "cifar10");
  const DatasetGeometry geometry = dataset_geometry(e.dataset);
  Graph graph = build_graph(e.model, geometry.image, geometry.classes);
  int convolutions = 0, batch_norms = 0, adds = 0;
  for (const Node& node : graph.nodes) {
    convolutions += node.type == "conv2d";
    batch_norms += node.type == "batch_norm2d";
    adds += node.type == "add";
  }
  // The stem, two per block and two 1x1 shortcuts; a batch norm after each; three joins.
  EXPECT_EQ(convolutions, 9);
  EXPECT_EQ(batch_norms, 9);
  EXPECT_EQ(adds, 3);
  EXPECT_EQ(graph.input_shapes(graph.output())[0], (Shape{64, 1, 1, true}));
  // 78,042 trainable values (PyTorch's count for this net) and 672 running statistics.
  EXPECT_EQ(graph.parameter_count(), 78042 + 672);
  EXPECT_EQ(e.checkpoint.path, "resnet8.safetensors");
}

TEST(ShippedConfigs, Resnet8FashionMnistAndTheBenchWorkloadShareTheCifarNetAndRecipe) {
  Experiment cifar = load_experiment(config_path("resnet8_cifar.yaml"), {});
  for (const char* name : {"resnet8_fashion_mnist.yaml", "bench/resnet8_cifar_synthetic.yaml"}) {
    Experiment e = load_experiment(config_path(name), {});
    expect_resnet8_recipe(e);
    EXPECT_EQ(e.resolved["model"], cifar.resolved["model"]) << name;
    EXPECT_EQ(e.resolved["training"], cifar.resolved["training"]) << name;
  }
  Experiment fashion = load_experiment(config_path("resnet8_fashion_mnist.yaml"), {});
  EXPECT_EQ(fashion.dataset.root, "/usr/share/datasets/fashion-mnist");
  EXPECT_EQ(fashion.dataset.normalize.mean, std::vector<float>({0.2860f}));
}

// Batch norm, dropout, a residual join, the recipe's warm-up and cosine, label smoothing and
// augmentation on small generated images: the configuration the resume tests run.
TEST(ShippedConfigs, TinyResnetSyntheticHasEveryPartOfTheRecipe) {
  Experiment e = load_experiment(config_path("tiny_resnet_synthetic.yaml"), {});
  EXPECT_EQ(e.dataset.name, "synthetic");
  EXPECT_EQ(e.device.name(), "cpu");
  std::vector<std::string> types;
  for (const LayerSpec& layer : e.model.layers) types.push_back(layer.type);
  for (const char* kind : {"batch_norm2d", "dropout", "add", "global_avg_pool2d"}) {
    EXPECT_NE(std::find(types.begin(), types.end(), kind), types.end()) << kind;
  }
  EXPECT_EQ(e.training.schedule.type, ScheduleType::cosine);
  EXPECT_GT(e.training.schedule.warmup_epochs, 0);
  EXPECT_GT(e.training.label_smoothing, 0);
  EXPECT_EQ(e.dataset.augment.size(), 2u);
  // Its epochs end with a short batch, which batch norm trains whole.
  EXPECT_NE(e.dataset.synthetic.train_count % e.training.batch_size, 0);
}

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
  EXPECT_EQ(e.device.name(), "auto");
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
  EXPECT_EQ(e.device.name(), "cpu");
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
    EXPECT_EQ(e.device.name(), "auto");
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
  const testing::ScopedEnv env("RUNNER_SCHEMA_DIR", dir.path());
  try {
    validate_config(doc);
    ADD_FAILURE() << "expected a UserError for the missing schema";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("schema not found"), std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find(dir.path().string()), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace runner
