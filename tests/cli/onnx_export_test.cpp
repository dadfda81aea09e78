// `runner export --onnx` end to end: trained runs exported, then checked by tools that share no
// code with the runner (scripts/onnx_check.py: onnx's checker and shape inference, a NumPy
// interpreter of the ONNX operators, OpenCV's dnn module) against `runner predict` on the same
// image files: the same top-1 class and probabilities within 1e-4.
#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>

#include "data/image_writers.h"
#include "learnable_cifar.h"
#include "runner/util/files.h"
#include "test_support.h"

namespace runner::testing {
namespace {

namespace fs = std::filesystem;

constexpr int kImages = 8;

// Whether /usr/bin/python3 has onnx and OpenCV (Debian's python3-onnx, python3-opencv); CI
// installs them, so there a missing one fails instead of skipping.
bool have_onnx_tools() {
  return run_command("/usr/bin/python3 -c 'import onnx, cv2, numpy' 2>/dev/null").exit_code == 0;
}

#define REQUIRE_ONNX_TOOLS()                                                                \
  if (!have_onnx_tools()) {                                                                 \
    if (in_ci()) FAIL() << "CI must install python3-onnx and python3-opencv";               \
    GTEST_SKIP() << "no /usr/bin/python3 with onnx and cv2 (python3-onnx, python3-opencv)"; \
  }

// `count` PNG files of noise at the model's input size (what predict reads without resizing).
fs::path write_noise_images(const TempDir& tmp, int channels, int size) {
  const fs::path folder = tmp / "images";
  fs::create_directories(folder);
  std::uint32_t state = 12345;
  for (int i = 0; i < kImages; ++i) {
    std::vector<std::uint16_t> samples(static_cast<std::size_t>(channels) * size * size);
    for (auto& s : samples) {
      state = state * 1664525u + 1013904223u;
      s = static_cast<std::uint16_t>(state >> 24);
    }
    write_bytes(folder / ("image" + std::to_string(i) + ".png"),
                png_file(size, size, channels == 1 ? 0 : 2, 8, samples));
  }
  return folder;
}

// Trains `arguments` (a config and options) into tmp/runs; returns the run's folder.
fs::path train(const TempDir& tmp, const std::string& arguments) {
  CommandResult run = run_runner(arguments + " --quiet --output " + (tmp / "runs").string());
  EXPECT_EQ(run.exit_code, 0) << run.output;
  return fs::path(report_path_in(run.output)).parent_path();
}

struct Checked {
  CommandResult result;  // of onnx_check.py
  nlohmann::json findings;
};

// predict's probabilities of every class for the images, the export (with `export_options`),
// and onnx_check.py (`opencv`: must or may) on both.
Checked export_and_check(const TempDir& tmp, const fs::path& run_dir, const fs::path& images,
                         int classes, const std::string& export_options,
                         const std::string& opencv = "must") {
  const fs::path predictions = tmp / "predictions.json", model = tmp / "model.onnx";
  CommandResult predicted = run_command(
      "(" + std::string(RUNNER_BINARY) + " predict " + run_dir.string() + " " + images.string() +
      " --json --top-k " + std::to_string(classes) + " > " + predictions.string() + ")");
  EXPECT_EQ(predicted.exit_code, 0) << predicted.output;
  CommandResult exported =
      run_runner("export " + run_dir.string() + " --onnx " + model.string() + " " + export_options);
  EXPECT_EQ(exported.exit_code, 0) << exported.output;
  Checked checked;
  checked.result = run_command(
      "(/usr/bin/python3 " + (source_dir() / "scripts" / "onnx_check.py").string() + " " +
      model.string() + " " + predictions.string() + " --opencv " + opencv + " 2>/dev/null)");
  checked.findings = nlohmann::json::parse(checked.result.output, nullptr, false);
  return checked;
}

// onnx_check.py's findings when OpenCV ran the model and agreed with the runner.
void expect_opencv_agrees(const Checked& checked) {
  ASSERT_EQ(checked.result.exit_code, 0) << checked.result.output;
  EXPECT_EQ(checked.findings["checker"], "ok");
  EXPECT_EQ(checked.findings["opencv"], "ran") << checked.result.output;
  EXPECT_EQ(checked.findings["top1_agree"], kImages);
  EXPECT_LE(checked.findings["max_probability_difference"].get<double>(), 1e-4);
  EXPECT_LE(checked.findings["reference_difference"].get<double>(), 1e-4);
  // Stricter than the 1e-4 of the probabilities, which a barely trained model's near-uniform
  // outputs meet even where a layer is exported wrong: the logits agree to 1e-4 (relative).
  EXPECT_LE(checked.findings["max_log_probability_difference"].get<double>(), 1e-4);
  EXPECT_LE(checked.findings["reference_log_difference"].get<double>(), 1e-4);
}

std::string synthetic_config(const std::string& name, int channels, const std::string& layers) {
  return "name: " + name + R"(
seed: 0
device: cpu
dataset:
  name: synthetic
  synthetic: {channels: )" +
         std::to_string(channels) +
         R"(, height: 16, width: 16, classes: 10, train_count: 64, test_count: 16}
model:
  layers:
)" + layers +
         R"(training:
  epochs: 1
  batch_size: 16
  optimizer: {type: adam, lr: 0.01}
checkpoint: {path: model.safetensors}
)";
}

nlohmann::json report_of(const fs::path& run_dir) {
  return nlohmann::json::parse(read_file(run_dir / "report.json"));
}

// The shipped LeNet and ResNet-8 configs, trained on CIFAR-10 files of a learnable task.
class OnnxExportCifar : public ::testing::Test {
 protected:
  void train_shipped(const std::string& config) {
    write_learnable_cifar10(tmp_ / "cifar", {64, 64, 0, 0, 0, 16});
    run_dir_ = train(tmp_, (source_dir() / "configs" / config).string() +
                               " --set dataset.root=" + (tmp_ / "cifar").string() +
                               " --set dataset.download=false --set training.epochs=1"
                               " --set training.batch_size=32 --set device=cpu");
    images_ = write_noise_images(tmp_, 3, 32);
  }
  TempDir tmp_;
  fs::path run_dir_, images_;
};

TEST_F(OnnxExportCifar, LeNetRunsInOpenCvAsRunnerPredictsIt) {
  REQUIRE_ONNX_TOOLS();
  train_shipped("lenet_cifar.yaml");
  ASSERT_FALSE(HasFatalFailure());
  Checked checked = export_and_check(tmp_, run_dir_, images_, 10, "--softmax");
  expect_opencv_agrees(checked);
  EXPECT_EQ(checked.findings["outputs"], nlohmann::json({"logits", "probabilities"}));
  EXPECT_EQ(checked.findings["opset"], 13);
  EXPECT_EQ(checked.findings["classes"], 10);
  EXPECT_EQ(checked.findings["run_id"], report_of(run_dir_)["run_id"]);
}

TEST_F(OnnxExportCifar, ResNet8RunsInOpenCvAsRunnerPredictsIt) {
  REQUIRE_ONNX_TOOLS();
  train_shipped("resnet8_cifar.yaml");
  ASSERT_FALSE(HasFatalFailure());
  Checked checked = export_and_check(tmp_, run_dir_, images_, 10, "");
  expect_opencv_agrees(checked);
  EXPECT_EQ(checked.findings["outputs"], nlohmann::json({"logits"}));
  for (const char* op : {"Conv", "BatchNormalization", "Add", "GlobalAveragePool", "Gemm"}) {
    EXPECT_NE(checked.findings["ops"].dump().find(op), std::string::npos) << op;
  }
}

// Every kind OpenCV 4.6 runs with a batch of any size, in one network: convolutions grouped,
// dilated, without bias; both batch norms; layer and group norm on images and on flat
// features; each activation; add, mul, concat, scale; both pools with padding; dropout and
// drop_path; flatten and a global pool as two heads joined.
TEST(OnnxExport, EveryConvolutionalKindRunsInOpenCvAsRunnerPredictsIt) {
  REQUIRE_ONNX_TOOLS();
  TempDir tmp;
  const std::string layers =
      R"(    - {name: stem, type: conv2d, out_channels: 8, kernel: 3, padding: 1}
    - {name: bn, type: batch_norm2d}
    - {name: a1, type: relu6}
    - {name: dw, type: conv2d, out_channels: 8, kernel: 3, padding: 2, dilation: 2, groups: depthwise}
    - {name: bn2, type: batch_norm2d, affine: false}
    - {name: a2, type: hardswish}
    - {name: pw, type: conv2d, out_channels: 8, kernel: [3, 1], padding: [1, 0], bias: false}
    - {name: ln, type: layer_norm}
    - {name: a3, type: gelu}
    - {name: gn, type: group_norm, groups: 2}
    - {name: a4, type: silu}
    - {name: sum, type: add, inputs: [a4, a1, a2]}
    - {name: a5, type: leaky_relu, negative_slope: 0.2}
    - {name: gate, type: sigmoid}
    - {name: prod, type: mul, inputs: [a5, gate]}
    - {name: cat, type: concat, inputs: [prod, a2]}
    - {name: sc, type: scale, init_value: 0.5}
    - {name: mp, type: max_pool2d, kernel: 3, stride: 2, padding: 1}
    - {name: a6, type: tanh}
    - {name: ap, type: avg_pool2d, kernel: 3, stride: 2, padding: 1}
    - {name: a7, type: hardsigmoid}
    - {name: dp, type: drop_path, p: 0.1}
    - {name: flat, type: flatten}
    - {name: gap, type: global_avg_pool2d, flatten: true, inputs: [dp]}
    - {name: heads, type: concat, inputs: [flat, gap]}
    - {name: fln, type: layer_norm}
    - {name: fgn, type: group_norm, groups: 4}
    - {name: fsc, type: scale}
    - {name: drop, type: dropout, p: 0.2}
    - {name: fc1, type: linear, out_features: 16}
    - {name: a8, type: gelu, approximate: tanh}
    - {name: a9, type: relu}
    - {name: fc, type: linear, out_features: 10}
)";
  const fs::path run_dir =
      train(tmp, tmp.write("kinds.yaml", synthetic_config("kinds", 3, layers)).string());
  ASSERT_FALSE(HasFatalFailure());
  expect_opencv_agrees(export_and_check(tmp, run_dir, write_noise_images(tmp, 3, 16), 10, ""));
}

// Squeeze-and-excitation gates (one value per channel, flat or one token, broadcast over the
// positions) and the token kinds OpenCV 4.6 runs, on gray images: OpenCV needs a fixed batch size
// for both
// (`--batch`), where its broadcasts are planned with the input's shape.
TEST(OnnxExport, GatesAndTokensRunInOpenCvWithAFixedBatch) {
  REQUIRE_ONNX_TOOLS();
  TempDir tmp;
  const std::string layers =
      R"(    - {name: stem, type: conv2d, out_channels: 8, kernel: 4, stride: 4}
    - {name: squeeze, type: global_avg_pool2d, flatten: true}
    - {name: excite, type: linear, out_features: 8}
    - {name: gate, type: hardsigmoid}
    - {name: se, type: mul, inputs: [stem, gate]}
    - {name: pooled, type: global_avg_pool2d, inputs: [se]}
    - {name: one_token, type: to_tokens}
    - {name: token_gate, type: sigmoid}
    - {name: gated, type: mul, inputs: [se, token_gate]}
    - {name: tokens, type: to_tokens}
    - {name: cls, type: class_token}
    - {name: mix, type: linear, out_features: 12}
    - {name: norm, type: layer_norm, affine: false}
    - {name: first, type: token_select, select: class}
    - {name: mean, type: token_select, select: mean, inputs: [norm]}
    - {name: both, type: concat, inputs: [first, mean]}
    - {name: fc, type: linear, out_features: 10}
)";
  const fs::path run_dir =
      train(tmp, tmp.write("gates.yaml", synthetic_config("gates", 1, layers)).string());
  ASSERT_FALSE(HasFatalFailure());
  expect_opencv_agrees(export_and_check(tmp, run_dir, write_noise_images(tmp, 1, 16), 10,
                                        "--batch " + std::to_string(kImages)));
}

// A small vision transformer (position embedding, attention, layer scale on tokens), which
// OpenCV 4.6 cannot run: the NumPy interpreter of the ONNX operators checks its numbers.
TEST(OnnxExport, AVisionTransformerComputesWhatRunnerPredicts) {
  REQUIRE_ONNX_TOOLS();
  TempDir tmp;
  const std::string layers =
      R"(    - {name: patch, type: conv2d, out_channels: 16, kernel: 4, stride: 4}
    - {name: tokens, type: to_tokens}
    - {name: cls, type: class_token}
    - {name: pos, type: position_embedding}
    - {name: n1, type: layer_norm, eps: 1.0e-6}
    - {name: attn, type: self_attention, heads: 2}
    - {name: ls, type: scale, init_value: 0.1}
    - {name: dp, type: drop_path, p: 0.1}
    - {name: s1, type: add, inputs: [pos, dp]}
    - {name: fc1, type: linear, out_features: 32}
    - {name: act, type: gelu}
    - {name: fc2, type: linear, out_features: 16}
    - {name: s2, type: add, inputs: [s1, fc2]}
    - {name: norm, type: layer_norm}
    - {name: sel, type: token_select, select: class}
    - {name: head, type: linear, out_features: 10}
)";
  const fs::path run_dir =
      train(tmp, tmp.write("vit.yaml", synthetic_config("vit", 3, layers)).string());
  ASSERT_FALSE(HasFatalFailure());
  Checked checked = export_and_check(tmp, run_dir, write_noise_images(tmp, 3, 16), 10, "", "may");
  ASSERT_EQ(checked.result.exit_code, 0) << checked.result.output;
  EXPECT_LE(checked.findings["reference_difference"].get<double>(), 1e-4);
  EXPECT_LE(checked.findings["reference_log_difference"].get<double>(), 1e-4);
  // OpenCV either refuses it (4.6) or, where it runs it, agreed (else the script fails).
  EXPECT_TRUE(checked.findings.contains("opencv")) << checked.result.output;
}

TEST(OnnxExport, BadRequestsAreRefusedNamingWhatIsWrong) {
  TempDir tmp;
  const std::string layers = R"(    - {name: flat, type: flatten}
    - {name: fc, type: linear, out_features: 10}
)";
  const fs::path run_dir =
      train(tmp, tmp.write("tiny.yaml", synthetic_config("tiny", 1, layers)).string());
  ASSERT_FALSE(HasFatalFailure());
  CommandResult folder =
      run_runner("export " + run_dir.string() + " --onnx " + tmp.path().string());
  EXPECT_EQ(folder.exit_code, 2);
  EXPECT_NE(folder.output.find("is a folder"), std::string::npos) << folder.output;
  CommandResult missing =
      run_runner("export " + (tmp / "nowhere").string() + " --onnx " + (tmp / "m.onnx").string());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.output.find("no such run folder or checkpoint"), std::string::npos);
  CommandResult no_flag = run_runner("export " + run_dir.string());
  EXPECT_EQ(no_flag.exit_code, 2);
  EXPECT_NE(no_flag.output.find("--onnx"), std::string::npos) << no_flag.output;
  for (const char* own : {"model.safetensors", "report.json"}) {
    CommandResult overwrite =
        run_runner("export " + run_dir.string() + " --onnx " + (run_dir / own).string());
    EXPECT_EQ(overwrite.exit_code, 2) << own;
    EXPECT_NE(overwrite.output.find("is the run's"), std::string::npos) << overwrite.output;
  }
  // Weights that are not finite export nothing, and an existing file stays as it was.
  write_bytes(tmp / "m.onnx", "earlier");
  std::string checkpoint = read_file(run_dir / "model.safetensors");
  std::uint64_t header_bytes = 0;
  std::memcpy(&header_bytes, checkpoint.data(), 8);
  const nlohmann::json header = nlohmann::json::parse(checkpoint.substr(8, header_bytes));
  const std::size_t fc_weight =
      8 + header_bytes + header["fc.weight"]["data_offsets"][0].get<std::size_t>();
  checkpoint.replace(fc_weight, 4, std::string("\x00\x00\xc0\x7f", 4));  // a NaN
  write_bytes(run_dir / "model.safetensors", checkpoint);
  CommandResult nan =
      run_runner("export " + run_dir.string() + " --onnx " + (tmp / "m.onnx").string());
  EXPECT_EQ(nan.exit_code, 2);
  EXPECT_NE(nan.output.find("not finite"), std::string::npos) << nan.output;
  EXPECT_EQ(read_file(tmp / "m.onnx"), "earlier");
}

}  // namespace
}  // namespace runner::testing
