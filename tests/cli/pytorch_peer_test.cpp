// scripts/pytorch_peer.py reads a config as the runner does: the optimizer's defaults are the
// runner's, and dataset.root (given or the default) is the folder the runner reads the files
// from, so both train and score on the same images.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "data/data_files.h"
#include "data/image_writers.h"
#include "runner/config/load_config.h"
#include "test_support.h"

namespace runner::testing {
namespace {

bool have_torch() {
  return run_command("/usr/bin/python3 -c 'import torch, yaml, numpy'").exit_code == 0;
}

std::string peer() {
  return "/usr/bin/python3 " + (source_dir() / "scripts" / "pytorch_peer.py").string();
}

// The settings of the peer's optimizer for a config's `optimizer` mapping (JSON), as PyTorch's
// param_groups hold them.
nlohmann::json peer_optimizer(const TempDir& tmp, const std::string& optimizer) {
  auto script =
      tmp.write("optimizer.py", "import json, sys\nsys.path.insert(0, '" +
                                    (source_dir() / "scripts").string() +
                                    "')\n"
                                    "import pytorch_peer as p\n"
                                    "net = p.GraphNet([{'name': 'fc', 'type': 'linear', "
                                    "'out_features': 2}], (4,))\n"
                                    "group = p.optimizer_for(net, json.loads(sys.argv[1]))"
                                    ".param_groups[0]\n"
                                    "print(json.dumps({k: v for k, v in group.items() "
                                    "if k != 'params'}))\n");
  auto result = run_command("/usr/bin/python3 " + script.string() + " '" + optimizer + "'");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  return result.exit_code == 0 ? nlohmann::json::parse(result.output) : nlohmann::json();
}

TEST(PyTorchPeer, OptimizerDefaultsAreTheRunners) {
  if (!have_torch()) GTEST_SKIP() << "no /usr/bin/python3 with torch, yaml and numpy";
  TempDir tmp;
  for (const char* type : {"sgd", "adam", "adamw"}) {
    auto config = tmp.write(std::string(type) + ".yaml",
                            "name: o\ndataset: {name: synthetic}\n"
                            "model: {layers: [{name: flat, type: flatten}, "
                            "{name: fc, type: linear, out_features: 10}]}\n"
                            "training: {optimizer: {type: " +
                                std::string(type) + "}}\n");
    const nlohmann::json runner = load_experiment(config, {}).resolved["training"]["optimizer"];
    const nlohmann::json torch = peer_optimizer(tmp, std::string("{\"type\": \"") + type + "\"}");
    EXPECT_EQ(torch["lr"], runner["lr"]) << type;
    EXPECT_EQ(torch["weight_decay"], runner["weight_decay"]) << type;
    if (std::string(type) == "sgd") {
      for (const char* key : {"momentum", "dampening", "nesterov"}) {
        EXPECT_EQ(torch[key], runner[key]) << type << " " << key;
      }
    } else {
      EXPECT_EQ(torch["betas"], nlohmann::json({runner["beta1"], runner["beta2"]})) << type;
      EXPECT_EQ(torch["eps"], runner["eps"]) << type;
    }
  }
  // A config without an optimizer mapping trains with SGD at the default rate on both sides.
  EXPECT_EQ(peer_optimizer(tmp, "{}")["lr"], 0.001);
}

// CIFAR-10 files written in the real format into the runner's default root,
// data/cifar-10-batches-bin under the working folder: the runner trains on them and the peer
// scores its checkpoint from the same root, left out of the config or given as a path.
// The report of a run of `config` from the folder `tmp` (where a default dataset.root is).
nlohmann::json run_in(const TempDir& tmp, const std::filesystem::path& config) {
  auto run = run_command("cd " + tmp.path().string() + " && " + RUNNER_BINARY + " " +
                         config.string() + " --quiet --output " + (tmp / "out").string());
  EXPECT_EQ(run.exit_code, 0) << run.output;
  std::ifstream in(report_path_in(run.output));
  return in ? nlohmann::json::parse(in) : nlohmann::json();
}

// The peer's scores of `checkpoint` under `config` (test_accuracy, test_loss, tensors), run
// from the folder `tmp` with this build's runner (which expands a config's blocks for it).
nlohmann::json peer_scores(const TempDir& tmp, const std::filesystem::path& config,
                           const std::string& checkpoint) {
  auto scored = run_command("cd " + tmp.path().string() + " && RUNNER=" + RUNNER_BINARY + " " +
                            peer() + " evaluate " + config.string() + " " + checkpoint);
  EXPECT_EQ(scored.exit_code, 0) << config << ": " << scored.output;
  return scored.exit_code == 0 ? nlohmann::json::parse(scored.output) : nlohmann::json();
}

// The peer's training of `config` on one thread: the JSON line it ends with (null if it failed).
nlohmann::json peer_trained(const std::filesystem::path& config) {
  auto trained = run_command("RUNNER=" + std::string(RUNNER_BINARY) + " " + peer() + " train " +
                             config.string() + " --threads 1");
  EXPECT_EQ(trained.exit_code, 0) << trained.output;
  const auto brace = trained.output.rfind('{');
  if (trained.exit_code != 0 || brace == std::string::npos) return nlohmann::json();
  return nlohmann::json::parse(trained.output.substr(brace));
}

// The peer's test accuracy of `checkpoint` under `config`, run from the folder `tmp`.
double peer_accuracy(const TempDir& tmp, const std::filesystem::path& config,
                     const std::string& checkpoint) {
  const nlohmann::json scores = peer_scores(tmp, config, checkpoint);
  return scores.is_object() ? scores["test_accuracy"].get<double>() : -1;
}

// The runner's report's test loss and the peer's for its checkpoint agree; the peer loaded
// `tensors` tensors (strictly: every one the net has, nothing else).
void expect_peer_reproduces(const TempDir& tmp, const std::filesystem::path& config,
                            const nlohmann::json& report, int tensors) {
  const nlohmann::json scores =
      peer_scores(tmp, config, report["checkpoint"]["path"].get<std::string>());
  ASSERT_TRUE(scores.is_object());
  const double loss = report["metrics"]["test_loss"].get<double>();
  EXPECT_NEAR(scores["test_loss"].get<double>(), loss, 1e-5 * (1 + loss));
  EXPECT_EQ(scores["tensors"], tensors);
}

TEST(PyTorchPeer, ReadsCifar10FromTheFolderTheRunnerReads) {
  if (!have_torch()) GTEST_SKIP() << "no /usr/bin/python3 with torch, yaml and numpy";
  TempDir tmp;
  const auto root = tmp / "data" / "cifar-10-batches-bin";
  write_cifar10_folder(root, {40, 40, 40, 40, 40, 64}, 7);
  const std::string model =
      "device: cpu\n"
      "model:\n"
      "  layers:\n"
      "    - {name: conv, type: conv2d, out_channels: 4, kernel: 3, stride: 2}\n"
      "    - {name: relu, type: relu}\n"
      "    - {name: flat, type: flatten}\n"
      "    - {name: fc, type: linear, out_features: 10}\n"
      "training: {epochs: 1, batch_size: 20, optimizer: {type: sgd, lr: 0.01}}\n"
      "checkpoint: {path: c.safetensors}\n";
  auto default_root = tmp.write("default.yaml", "name: c\ndataset: {name: cifar10}\n" + model);
  auto given_root = tmp.write(
      "given.yaml", "name: c\ndataset: {name: cifar10, root: " + root.string() + "}\n" + model);
  const nlohmann::json report = run_in(tmp, default_root);
  ASSERT_TRUE(report.is_object());
  EXPECT_EQ(report["metrics"]["test_images"], 64);
  const std::string checkpoint = report["checkpoint"]["path"];
  for (const auto& config : {default_root, given_root}) {
    // 64 test images; float rounding may flip an argmax between near-equal logits.
    EXPECT_NEAR(peer_accuracy(tmp, config, checkpoint),
                report["metrics"]["test_accuracy"].get<double>(), 1.5 / 64)
        << config;
  }
  // A root that holds cifar-10-batches-bin/ instead of the files is refused by both, by name.
  auto parent = tmp.write("parent.yaml", "name: c\ndataset: {name: cifar10, root: " +
                                             (tmp / "data").string() + "}\n" + model);
  auto refused = run_command(peer() + " evaluate " + parent.string() + " " + checkpoint);
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.output.find("data_batch_1.bin: not found"), std::string::npos)
      << refused.output;
  EXPECT_EQ(run_runner(parent.string() + " --output " + (tmp / "out").string()).exit_code, 2);
}

// CIFAR-100 from its default root, on the coarse labels: the peer reads the same label byte.
TEST(PyTorchPeer, ReadsCifar100sCoarseLabelsAsTheRunnerDoes) {
  if (!have_torch()) GTEST_SKIP() << "no /usr/bin/python3 with torch, yaml and numpy";
  TempDir tmp;
  write_cifar100_folder(tmp / "data" / "cifar-100-binary", 100, 64, 8);
  auto config =
      tmp.write("coarse.yaml",
                "name: c\ndevice: cpu\ndataset: {name: cifar100, label: coarse}\n"
                "model:\n  layers:\n    - {name: flat, type: flatten}\n"
                "    - {name: fc, type: linear, out_features: 20}\n"
                "training: {epochs: 1, batch_size: 20, optimizer: {type: sgd, lr: 0.01}}\n"
                "checkpoint: {path: c.safetensors}\n");
  const nlohmann::json report = run_in(tmp, config);
  ASSERT_TRUE(report.is_object());
  EXPECT_EQ(report["metrics"]["test_images"], 64);
  EXPECT_NEAR(peer_accuracy(tmp, config, report["checkpoint"]["path"]),
              report["metrics"]["test_accuracy"].get<double>(), 1.5 / 64);
}

// A checkpoint of a net of issue 37's kinds (silu, relu6, hardswish, hardsigmoid, gelu's tanh
// form, mul with a flat and a Cx1x1 gate, scale) loads into the peer's network by name, every
// tensor and nothing else, and gives the runner's test loss: the peer computes the same
// functions.
TEST(PyTorchPeer, ScoresACheckpointOfTheNewerKindsAsTheRunner) {
  if (!have_torch()) GTEST_SKIP() << "no /usr/bin/python3 with torch, yaml and numpy";
  TempDir tmp;
  auto config =
      tmp.write("se.yaml",
                "name: se\ndevice: cpu\n"
                "dataset: {name: synthetic, synthetic: {height: 8, width: 8, train_count: 128, "
                "test_count: 64}}\n"
                "model:\n  layers:\n"
                "    - {name: c, type: conv2d, out_channels: 8, kernel: 3, padding: 1}\n"
                "    - {name: a, type: hardswish}\n"
                "    - {name: pool, type: global_avg_pool2d, flatten: true}\n"
                "    - {name: squeeze, type: linear, out_features: 4}\n"
                "    - {name: r, type: relu6}\n"
                "    - {name: excite, type: linear, out_features: 8}\n"
                "    - {name: gate, type: hardsigmoid}\n"
                "    - {name: se, type: mul, inputs: [a, gate]}\n"
                "    - {name: s, type: silu}\n"
                "    - {name: pool2, type: global_avg_pool2d, inputs: [s]}\n"
                "    - {name: se2, type: mul, inputs: [s, pool2]}\n"
                "    - {name: layer_scale, type: scale, init_value: 0.5}\n"
                "    - {name: g, type: gelu, approximate: tanh}\n"
                "    - {name: flat, type: flatten}\n"
                "    - {name: fc, type: linear, out_features: 10}\n"
                "training: {epochs: 2, batch_size: 16, optimizer: {type: adam, lr: 0.01}}\n"
                "checkpoint: {path: c.safetensors}\n");
  const nlohmann::json report = run_in(tmp, config);
  ASSERT_TRUE(report.is_object());
  expect_peer_reproduces(tmp, config, report, 9);  // c, squeeze, excite, fc: weight, bias; scale
}

// A small vision transformer written with blocks (the peer expands them with `runner describe
// --json`): every token kind, attention with dropout, drop_path and a layer scale on tokens, two
// readouts. The peer builds timm's modules under the runner's names (a bare cls_token and
// pos_embed, blocks.0.attn.qkv.weight), loads the checkpoint strictly and gets its test loss.
TEST(PyTorchPeer, ScoresACheckpointOfATokenModelAsTheRunner) {
  if (!have_torch()) GTEST_SKIP() << "no /usr/bin/python3 with torch, yaml and numpy";
  TempDir tmp;
  auto config = tmp.write(
      "vit.yaml",
      "name: vit\ndevice: cpu\n"
      "dataset: {name: synthetic, synthetic: {height: 8, width: 8, train_count: 64, "
      "test_count: 32}}\n"
      "model:\n  width: 0.125\n  blocks:\n    block:\n      params: {dim: ~}\n"
      "      layers:\n"
      "        - {name: norm1, type: layer_norm, eps: 1.0e-6}\n"
      "        - {name: attn, type: self_attention, heads: 2, dropout: 0.1}\n"
      "        - {name: ls, type: scale, init_value: 0.5}\n"
      "        - {name: drop, type: drop_path, p: 0.2}\n"
      "        - {name: sum1, type: add, inputs: [input, drop]}\n"
      "        - {name: norm2, type: layer_norm, eps: 1.0e-6}\n"
      "        - {name: fc1, type: linear, out_features: \"${expr:2 * dim}\"}\n"
      "        - {name: act, type: gelu}\n"
      "        - {name: fc2, type: linear, out_features: \"${dim}\"}\n"
      "        - {name: sum2, type: add, inputs: [sum1, fc2]}\n"
      "  layers:\n"
      "    - {name: patch_embed.proj, type: conv2d, out_channels: 128, kernel: 2, stride: 2}\n"
      "    - {name: tokens, type: to_tokens}\n"
      "    - {name: cls_token, type: class_token}\n"
      "    - {name: pos_embed, type: position_embedding}\n"
      "    - {name: blocks, block: block, repeat: 2, with: {dim: 128}}\n"
      "    - {name: norm, type: layer_norm, eps: 1.0e-6}\n"
      "    - {name: select, type: token_select}\n"
      "    - {name: mean, type: token_select, select: mean, inputs: [norm]}\n"
      "    - {name: both, type: add, inputs: [select, mean]}\n"
      "    - {name: head, type: linear, out_features: 10}\n"
      "training: {epochs: 1, batch_size: 16, optimizer: {type: adamw, lr: 0.003, "
      "weight_decay_exclude: [bias, norm, embedding]}}\n"
      "checkpoint: {path: c.safetensors}\n");
  const nlohmann::json report = run_in(tmp, config);
  ASSERT_TRUE(report.is_object());
  // patch_embed.proj and head: weight and bias; cls_token, pos_embed; per block norm1, norm2,
  // attn.qkv, attn.proj, fc1, fc2 (weight and bias each) and ls.weight; norm.
  expect_peer_reproduces(tmp, config, report, 2 + 2 + 2 * 13 + 2 + 2);
}

// A model written with blocks: the peer asks the runner to expand it (`runner describe --json`),
// nests the dotted names (stage.1.unit.0) as PyTorch nests modules, and scores the checkpoint
// strictly by name as the runner does.
TEST(PyTorchPeer, ScoresACheckpointOfAModelWrittenWithBlocks) {
  if (!have_torch()) GTEST_SKIP() << "no /usr/bin/python3 with torch, yaml and numpy";
  TempDir tmp;
  auto config = tmp.write(
      "blocks.yaml",
      "name: blocks\ndevice: cpu\n"
      "dataset: {name: synthetic, synthetic: {height: 8, width: 8, train_count: 128, "
      "test_count: 64}}\n"
      "model:\n"
      "  blocks:\n"
      "    unit:\n"
      "      params: {out: ~, skip: false}\n"
      "      layers:\n"
      "        - {name: '0', type: conv2d, out_channels: '${out}', kernel: 3, padding: 1}\n"
      "        - {name: '1', type: batch_norm2d}\n"
      "        - {name: sum, type: add, inputs: ['1', input], enabled: '${skip}'}\n"
      "        - {name: act, type: relu}\n"
      "  layers:\n"
      "    - {name: stem, block: unit, with: {out: 6}}\n"
      "    - {name: stage, block: unit, repeat: 2, with: {out: 6, skip: true}}\n"
      "    - {name: pool, type: global_avg_pool2d, flatten: true}\n"
      "    - {name: fc, type: linear, out_features: 10}\n"
      "training: {epochs: 2, batch_size: 16, optimizer: {type: adam, lr: 0.01}}\n"
      "checkpoint: {path: c.safetensors}\n");
  const nlohmann::json report = run_in(tmp, config);
  ASSERT_TRUE(report.is_object());
  auto scored = run_command("cd " + tmp.path().string() + " && RUNNER=" + RUNNER_BINARY + " " +
                            peer() + " evaluate " + config.string() + " " +
                            report["checkpoint"]["path"].get<std::string>());
  ASSERT_EQ(scored.exit_code, 0) << scored.output;
  const nlohmann::json peer_scores = nlohmann::json::parse(scored.output);
  const double loss = report["metrics"]["test_loss"].get<double>();
  EXPECT_NEAR(peer_scores["test_loss"].get<double>(), loss, 1e-5 * (1 + loss));
  // Three convolutions (weight, bias) and three batch norms (5 tensors each), fc's two.
  EXPECT_EQ(peer_scores["tensors"], 23);
}

// model.init: kaiming_normal reaches each layer with weights in the peer, and only those (it once
// looked up an attention's modules under every convolution and failed on ResNet-18's config).
TEST(PyTorchPeer, TrainsAKaimingInitialisedConfig) {
  if (!have_torch()) GTEST_SKIP() << "no /usr/bin/python3 with torch, yaml and numpy";
  TempDir tmp;
  auto config =
      tmp.write("kaiming.yaml",
                "name: kaiming\ndevice: cpu\n"
                "dataset: {name: synthetic, synthetic: {height: 8, width: 8, train_count: 64, "
                "test_count: 32}}\n"
                "model:\n"
                "  init: kaiming_normal\n"
                "  layers:\n"
                "    - {name: conv, type: conv2d, out_channels: 4, kernel: 3, padding: 1}\n"
                "    - {name: bn, type: batch_norm2d}\n"
                "    - {name: act, type: relu}\n"
                "    - {name: pool, type: global_avg_pool2d, flatten: true}\n"
                "    - {name: fc, type: linear, out_features: 10}\n"
                "training: {epochs: 1, batch_size: 16}\n");
  EXPECT_TRUE(peer_trained(config).contains("test_accuracy"));
}

// A folder of photos of several shapes, trained with `decode: per_epoch` (random_resized_crop of
// the full-size photo) and evaluated through `eval_transform` (Resize of the shorter side, then
// CenterCrop): the peer fits the test photos to the runner's bytes (the same test loss from the
// runner's checkpoint) and trains on the photos at full size as torchvision's ImageFolder does.
TEST(PyTorchPeer, FitsAFoldersPhotosAsTheRunnerDoes) {
  if (!have_torch()) GTEST_SKIP() << "no /usr/bin/python3 with torch, yaml and numpy";
  TempDir tmp;
  const std::pair<int, int> shapes[] = {{13, 9}, {9, 15}, {20, 11}, {8, 8}};
  std::uint32_t seed = 1;
  for (const char* split : {"train", "test"}) {
    for (const char* label : {"cat", "dog"}) {
      for (int i = 0; i < 8; ++i) {
        const auto [w, h] = shapes[i % 4];
        write_bytes(tmp / "photos" / split / label / (std::to_string(i) + ".png"),
                    rgb_png(w, h, test_pixels(static_cast<std::size_t>(w * h * 3), seed++)));
      }
    }
  }
  auto config =
      tmp.write("photos.yaml",
                "name: photos\ndevice: cpu\n"
                "dataset:\n  name: image_folder\n  root: " +
                    (tmp / "photos").string() +
                    "\n  image_size: 8\n  decode: per_epoch\n  workers: 0\n"
                    "  eval_transform: [{resize: {size: 10}}, {center_crop: {}}]\n"
                    "  augment: [{random_resized_crop: {}}, {horizontal_flip: {}}]\n"
                    "model:\n  layers:\n"
                    "    - {name: conv, type: conv2d, out_channels: 4, kernel: 3}\n"
                    "    - {name: relu, type: relu}\n"
                    "    - {name: flat, type: flatten}\n"
                    "    - {name: fc, type: linear, out_features: 2}\n"
                    "training: {epochs: 2, batch_size: 4, optimizer: {type: sgd, lr: 0.05}}\n"
                    "checkpoint: {path: c.safetensors}\n");
  const nlohmann::json report = run_in(tmp, config);
  ASSERT_TRUE(report.is_object());
  EXPECT_EQ(report["data"]["splits"]["train"]["decode"], "per_epoch");
  expect_peer_reproduces(tmp, config, report, 4);  // conv and fc: weight and bias
  EXPECT_EQ(peer_trained(config)["epoch_losses"].size(), 2u);
}

// The shipped ResNet-18, MobileNetV2 and ViT (their `make bench` configs: the shipped network on
// synthetic CIFAR-shaped images), at a quarter of their width: the peer builds each from the
// runner's expansion, loads its checkpoint strictly by name and gets the runner's test loss.
TEST(PyTorchPeer, ScoresACheckpointOfEachShippedArchitectureAsTheRunner) {
  if (!have_torch()) GTEST_SKIP() << "no /usr/bin/python3 with torch, yaml and numpy";
  for (const char* name : {"resnet18", "mobilenetv2", "vit_tiny"}) {
    TempDir tmp;
    const auto shipped =
        source_dir() / "configs" / "bench" / (std::string(name) + "_cifar_synthetic.yaml");
    auto config = tmp.write(
        "arch.yaml", "defaults: ['" + shipped.string() +
                         "']\n"
                         "model: {width: 0.25}\n"
                         "dataset: {synthetic: {train_count: 32, test_count: 16}, workers: 0}\n"
                         "training: {epochs: 1, batch_size: 16, eval_batch_size: 16}\n"
                         "checkpoint: !replace {path: c.safetensors}\n");
    const nlohmann::json report = run_in(tmp, config);
    ASSERT_TRUE(report.is_object()) << name;
    const nlohmann::json scores =
        peer_scores(tmp, config, report["checkpoint"]["path"].get<std::string>());
    ASSERT_TRUE(scores.is_object()) << name;
    const double loss = report["metrics"]["test_loss"].get<double>();
    EXPECT_NEAR(scores["test_loss"].get<double>(), loss, 1e-5 * (1 + loss)) << name;
    EXPECT_GT(scores["tensors"].get<int>(), 60) << name;
  }
}

}  // namespace
}  // namespace runner::testing
