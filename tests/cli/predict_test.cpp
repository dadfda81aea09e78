// `runner predict` end to end: a tiny synthetic run, its test images written as PNG files, and
// predict's labels checked against the run's own evaluation of those images.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "data/image_writers.h"
#include "runner/data/synthetic.h"
#include "runner/util/files.h"
#include "test_support.h"

namespace runner::testing {
namespace {

namespace fs = std::filesystem;

SyntheticSpec tiny_spec() {
  SyntheticSpec spec;
  spec.channels = 3;
  spec.height = 16;
  spec.width = 16;
  spec.classes = 10;
  spec.train_count = 256;
  spec.test_count = 64;
  return spec;
}

std::string tiny_config() {
  return R"(name: predict_tiny
seed: 0
device: cpu
dataset:
  name: synthetic
  synthetic: {channels: 3, height: 16, width: 16, classes: 10, train_count: 256, test_count: 64}
model:
  layers:
    - {name: conv1, type: conv2d, out_channels: 4, kernel: 3, padding: 1}
    - {name: relu1, type: relu}
    - {name: pool1, type: max_pool2d, kernel: 2, stride: 2}
    - {name: flat,  type: flatten}
    - {name: fc1,   type: linear, out_features: 10}
training:
  epochs: 1
  batch_size: 16
  eval_batch_size: 64
  loss: cross_entropy
  optimizer: {type: sgd, lr: 0.003, momentum: 0.9}
checkpoint: {path: model.safetensors}
)";
}

// (C, H, W) bytes as an RGB PNG.
std::string png_of(const std::uint8_t* planar, int height, int width) {
  std::vector<std::uint16_t> samples;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < 3; ++c) samples.push_back(planar[(c * height + y) * width + x]);
    }
  }
  return png_file(width, height, 2, 8, samples);
}

// One trained run and its test set as PNG files (images/00000.png, ...), shared by the tests.
class Predict : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tmp_ = new TempDir();
    fs::path config = tmp_->write("predict_tiny.yaml", tiny_config());
    CommandResult run = run_runner(config.string() + " --quiet --output " + tmp_->path().string());
    ASSERT_EQ(run.exit_code, 0) << run.output;
    fs::path report_path = report_path_in(run.output);
    run_dir_ = new fs::path(report_path.parent_path());
    std::ifstream in(report_path);
    report_ = new nlohmann::json(nlohmann::json::parse(in));
    const Dataset test = make_synthetic(tiny_spec(), 0).test;
    labels_ = new std::vector<std::int32_t>(test.labels);
    for (std::size_t i = 0; i < test.size(); ++i) {
      write_bytes(images() / fmt_index(i),
                  png_of(test.images.data() + i * test.image_bytes(), test.height, test.width));
    }
  }
  static void TearDownTestSuite() {
    delete labels_;
    delete report_;
    delete run_dir_;
    delete tmp_;
  }
  static std::string fmt_index(std::size_t i) {
    std::ostringstream name;
    name << std::setw(5) << std::setfill('0') << i << ".png";
    return name.str();
  }
  static fs::path images() { return tmp_->path() / "images"; }

  // Runs predict with stdout in a file; the result's output is stderr alone.
  static CommandResult predict(const std::string& arguments, std::string& out) {
    const fs::path file = tmp_->path() / "stdout.txt";
    CommandResult result = run_command("(" + std::string(RUNNER_BINARY) + " predict " + arguments +
                                       " > " + file.string() + ")");
    std::ifstream in(file);
    out.assign(std::istreambuf_iterator<char>(in), {});
    return result;
  }

  static TempDir* tmp_;
  static fs::path* run_dir_;
  static nlohmann::json* report_;
  static std::vector<std::int32_t>* labels_;
};

TempDir* Predict::tmp_ = nullptr;
fs::path* Predict::run_dir_ = nullptr;
nlohmann::json* Predict::report_ = nullptr;
std::vector<std::int32_t>* Predict::labels_ = nullptr;

TEST_F(Predict, TopClassesMatchTheRunsEvaluationOfTheSameImages) {
  ASSERT_EQ((*report_)["data"]["class_names"].size(), 10u);
  std::string out;
  CommandResult result =
      predict(run_dir_->string() + " " + images().string() + " --json --batch-size 24", out);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json list = nlohmann::json::parse(out);  // stdout holds the JSON alone
  ASSERT_EQ(list.size(), labels_->size());
  std::map<std::string, int> correct, total;
  int all_correct = 0;
  for (std::size_t i = 0; i < list.size(); ++i) {
    EXPECT_EQ(list[i]["path"], (images() / fmt_index(i)).string());
    const nlohmann::json& predictions = list[i]["predictions"];
    ASSERT_EQ(predictions.size(), 3u);
    double sum = 0, last = 1;
    for (const auto& p : predictions) {
      const double probability = p["probability"].get<double>();
      EXPECT_LE(probability, last);
      last = probability;
      sum += probability;
    }
    EXPECT_LE(sum, 1 + 1e-9);
    const std::string truth = "class" + std::to_string((*labels_)[i]);
    ++total[truth];
    if (predictions[0]["class"] == truth) {
      ++correct[truth];
      ++all_correct;
    }
  }
  const nlohmann::json& metrics = (*report_)["metrics"];
  for (const auto& [name, count] : total) {
    EXPECT_DOUBLE_EQ(metrics["per_class_accuracy"][name].get<double>(),
                     static_cast<double>(correct[name]) / count)
        << name;
  }
  // Half-trained (a small learning rate), so that wrong answers must match too.
  EXPECT_GT(metrics["test_accuracy"].get<double>(), 0.0);
  EXPECT_LT(metrics["test_accuracy"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(metrics["test_accuracy"].get<double>(),
                   static_cast<double>(all_correct) / static_cast<double>(labels_->size()));
}

// A file name that is not UTF-8 once made `--json` a type_error that lost every prediction: it
// is written with its stray byte as \xff, the others as they are.
TEST_F(Predict, AFileNameThatIsNotUtf8IsEscapedInTheJsonAndLosesNothing) {
  const fs::path odd = tmp_->path() / "odd" / "bad\xff.png";
  fs::create_directories(odd.parent_path());
  fs::copy_file(images() / "00000.png", odd, fs::copy_options::overwrite_existing);
  std::string out;
  CommandResult result = predict(run_dir_->string() + " '" + odd.string() + "' " +
                                     (images() / "00001.png").string() + " --json",
                                 out);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json list = nlohmann::json::parse(out);
  ASSERT_EQ(list.size(), 2u) << out;
  EXPECT_EQ(list[0]["path"], (tmp_->path() / "odd" / "bad\\xff.png").string());
  EXPECT_EQ(list[1]["path"], (images() / "00001.png").string());
}

TEST_F(Predict, TakesTheCheckpointFileAndResizesAndConvertsOtherImages) {
  // A grey 40x24 image: converted to the run's 3 channels and resized to 16x16.
  const fs::path grey = tmp_->path() / "other" / "grey.png";
  write_bytes(grey, png_file(40, 24, 0, 8, std::vector<std::uint16_t>(40 * 24, 90)));
  std::string out;
  CommandResult result =
      predict((*run_dir_ / "model.safetensors").string() + " " + (images() / "00000.png").string() +
                  " " + grey.string() + " --top-k 2",
              out);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(out.find((images() / "00000.png").string() + ": class"), std::string::npos) << out;
  EXPECT_NE(out.find(grey.string() + ": class"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '%'), 4) << out;  // two classes each
}

TEST_F(Predict, AnUndecodableFileIsReportedTheOthersStillPredictedExitOne) {
  const fs::path bad = tmp_->write("bad.png", "not an image");
  std::string out;
  CommandResult result = predict(run_dir_->string() + " " + (images() / "00001.png").string() +
                                     " " + bad.string() + " " + (images() / "00002.png").string(),
                                 out);
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find(bad.string()), std::string::npos) << result.output;
  EXPECT_NE(out.find("00001.png: class"), std::string::npos) << out;
  EXPECT_NE(out.find("00002.png: class"), std::string::npos) << out;
  EXPECT_EQ(out.find("bad.png"), std::string::npos) << out;
  // --json lists it too, in the files' order, with why (stdout holds the whole answer).
  std::string json_text;
  CommandResult json =
      predict(run_dir_->string() + " " + (images() / "00001.png").string() + " " + bad.string() +
                  " " + (images() / "00002.png").string() + " --json",
              json_text);
  EXPECT_EQ(json.exit_code, 1) << json.output;
  const nlohmann::json answer = nlohmann::json::parse(json_text);
  ASSERT_EQ(answer.size(), 3u) << json_text;
  EXPECT_TRUE(answer[0].contains("predictions")) << json_text;
  EXPECT_EQ(answer[1]["path"], bad.string());
  EXPECT_NE(answer[1]["error"].get<std::string>().find("not an image"), std::string::npos)
      << json_text;
  EXPECT_FALSE(answer[1].contains("predictions"));
  EXPECT_TRUE(answer[2].contains("predictions")) << json_text;
}

// A copied run folder predicts with the weights it holds, not with the file its report names
// in the original folder; weights that are not finite are refused, naming the file.
TEST_F(Predict, ACopiedRunFolderPredictsWithItsOwnWeightsAndRefusesNonFiniteOnes) {
  const fs::path copy = tmp_->path() / "copied_run";
  fs::remove_all(copy);
  fs::copy(*run_dir_, copy, fs::copy_options::recursive);
  std::string bytes = read_file(copy / "model.safetensors");
  std::uint64_t header = 0;
  std::memcpy(&header, bytes.data(), sizeof header);
  std::fill(bytes.begin() + 8 + static_cast<std::ptrdiff_t>(header), bytes.end(), '\xff');
  write_bytes(copy / "model.safetensors", bytes);  // every float a NaN
  std::string out;
  CommandResult nan = predict(copy.string() + " " + (images() / "00000.png").string(), out);
  EXPECT_EQ(nan.exit_code, 2) << nan.output;
  EXPECT_NE(nan.output.find((copy / "model.safetensors").string() + ": the weights are not finite"),
            std::string::npos)
      << nan.output;
  EXPECT_EQ(out, "") << "no prediction from NaN weights";

  // Without a file of its own, the folder's report names the original's, and says so.
  fs::remove(copy / "model.safetensors");
  CommandResult original = predict(copy.string() + " " + (images() / "00000.png").string(), out);
  EXPECT_EQ(original.exit_code, 0) << original.output;
  EXPECT_NE(original.output.find("weights: " + (*run_dir_ / "model.safetensors").string()),
            std::string::npos)
      << original.output;
}

// A copy of the run folder whose report's config `edit` changes.
fs::path edited_run(const fs::path& run_dir, const fs::path& copy,
                    const std::function<void(nlohmann::json&)>& edit) {
  fs::remove_all(copy);
  fs::copy(run_dir, copy, fs::copy_options::recursive);
  nlohmann::json report = nlohmann::json::parse(read_file(copy / "report.json"));
  edit(report["config"]);
  write_bytes(copy / "report.json", report.dump());
  return copy;
}

// An edited report is checked as `run` checks a config, naming the report and the field, and
// its checkpoint against the model, before anything is compiled: it once reached "oneDNN could
// not compile the model (status 1)".
TEST_F(Predict, AnEditedReportIsRefusedNamingTheReportAndFieldBeforeCompiling) {
  const std::string image = (images() / "00000.png").string();
  std::string out;
  // Predicting with the run edited by `edit` fails naming its report, then `expected`.
  const auto expect_refused = [&](const std::string& name,
                                  const std::function<void(nlohmann::json&)>& edit,
                                  const std::string& options, const std::string& expected) {
    const fs::path copy = edited_run(*run_dir_, tmp_->path() / name, edit);
    CommandResult result = predict(copy.string() + " " + image + options, out);
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_NE(result.output.find((copy / "report.json").string() + ": " + expected),
              std::string::npos)
        << result.output;
  };
  expect_refused(
      "edited_kernel", [](auto& config) { config["model"]["layers"][0]["kernel"] = 40; }, "",
      "config.model.layers[0]: conv1 (conv2d): input 3x16x16 (padding 1x1) is smaller than "
      "kernel 40x40");
  expect_refused(
      "edited_type", [](auto& config) { config["model"]["layers"][0]["out_channels"] = "four"; },
      "", "config.model.layers[0].out_channels: found \"four\"");
  // Weights of the same shapes, but a model of 1 GiB per image: batches of 100,000 are refused
  // before the backend allocates them.
  expect_refused(
      "edited_huge",
      [](auto& config) {
        config["dataset"]["synthetic"]["height"] = config["dataset"]["synthetic"]["width"] = 8192;
        config["model"]["layers"][2]["kernel"] = config["model"]["layers"][2]["stride"] = 1024;
      },
      " --batch-size 100000", "predicting in batches of 100000 images (--batch-size) needs about");

  // A report's evaluation batch of a million images: one file is predicted in a batch of one.
  const fs::path batch = edited_run(*run_dir_, tmp_->path() / "edited_batch", [](auto& config) {
    config["training"]["batch_size"] = config["training"]["eval_batch_size"] = 1048576;
  });
  CommandResult one = predict(batch.string() + " " + image, out);
  EXPECT_EQ(one.exit_code, 0) << one.output;
  EXPECT_NE(out.find("00000.png: class"), std::string::npos) << out;
}

// A line break in a file name stays inside that file's line, on stdout and in its error.
TEST_F(Predict, ALineBreakInAFileNameDoesNotSplitItsLine) {
  const fs::path good = tmp_->path() / "newline" / "good\nname.png";
  const fs::path bad = tmp_->path() / "newline" / "bad\nname.png";
  fs::create_directories(good.parent_path());
  fs::copy_file(images() / "00000.png", good, fs::copy_options::overwrite_existing);
  write_bytes(bad, "not an image");
  std::string out;
  CommandResult result =
      predict(run_dir_->string() + " '" + good.string() + "' '" + bad.string() + "'", out);
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_EQ(out.rfind((tmp_->path() / "newline").string() + "/good\\nname.png: class", 0), 0u)
      << out;
  const std::string error_line =
      "error: " + (tmp_->path() / "newline").string() + "/bad\\nname.png";
  const std::size_t at = result.output.find(error_line);
  ASSERT_NE(at, std::string::npos) << result.output;
  const std::size_t end = result.output.find('\n', at);
  EXPECT_NE(result.output.substr(at, end - at).find("not an image"), std::string::npos)
      << "the reason on the file's own line:\n"
      << result.output;
}

TEST_F(Predict, AMissingRunOrReportIsAUserError) {
  std::string out;
  CommandResult missing = predict((tmp_->path() / "no_such_run").string() + " x.png", out);
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("no_such_run"), std::string::npos) << missing.output;

  // A checkpoint copied away from its report.json.
  const fs::path alone = tmp_->path() / "alone" / "model.safetensors";
  fs::create_directories(alone.parent_path());
  fs::copy_file(*run_dir_ / "model.safetensors", alone);
  CommandResult no_report = predict(alone.string() + " " + (images() / "00000.png").string(), out);
  EXPECT_EQ(no_report.exit_code, 2) << no_report.output;
  EXPECT_NE(no_report.output.find("report.json"), std::string::npos) << no_report.output;
}

}  // namespace
}  // namespace runner::testing
