// Imbalanced data end to end: Debian's Fashion-MNIST with one class cut to a tenth of the
// others' images (T-shirt/top: 40 training images against 400), where plain cross-entropy
// hardly ever predicts the rare class. Class weights (balanced) and the balanced sampler must
// each raise that class's recall, and the worst class's, on the (balanced) test set. Training is
// seeded on one thread: the figures are the same on every run, and the margins are wide (plain
// cross-entropy: 0 % recall of the rare class; weighted 79.5 %; sampled 73.0 % when written).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "data/data_files.h"
#include "runner/config/schema_check.h"
#include "runner/config/schema_file.h"
#include "runner/data/idx.h"
#include "test_support.h"

namespace runner::testing {
namespace {

using nlohmann::json;

const std::filesystem::path kFashionMnist = "/usr/share/datasets/fashion-mnist";

// The first 400 training images of each class but class 0, and its first 40; the test files as
// they are.
void write_imbalanced_fashion_mnist(const std::filesystem::path& root) {
  const IdxImages images = read_idx_images(kFashionMnist / "train-images-idx3-ubyte.gz");
  const std::vector<std::int32_t> labels =
      read_idx_labels(kFashionMnist / "train-labels-idx1-ubyte.gz", 10);
  const std::size_t pixels = static_cast<std::size_t>(images.rows) * images.cols;
  std::string kept_pixels, kept_labels;
  std::vector<int> taken(10, 0);
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const int label = labels[i];
    if (taken[label] == (label == 0 ? 40 : 400)) continue;
    ++taken[label];
    kept_pixels.append(reinterpret_cast<const char*>(images.pixels.data() + i * pixels), pixels);
    kept_labels.push_back(static_cast<char>(label));
  }
  std::filesystem::create_directories(root);
  std::ofstream(root / "train-images-idx3-ubyte", std::ios::binary)
      << idx_images(static_cast<int>(kept_labels.size()), images.rows, images.cols, kept_pixels);
  std::ofstream(root / "train-labels-idx1-ubyte", std::ios::binary) << idx_labels(kept_labels);
  for (const char* file : {"t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"}) {
    std::filesystem::create_symlink(kFashionMnist / file, root / file);
  }
}

struct Recalls {
  double rare = 0, worst = 1;
  json report;
};

Recalls train(const std::filesystem::path& root, const std::filesystem::path& out,
              const std::string& options) {
  const CommandResult result = run_runner(
      (source_dir() / "configs" / "lenet_fashion_mnist.yaml").string() + " --quiet" +
      " --set dataset.root=" + root.string() +
      " --set dataset.test_limit=2000 --set training.threads=1 --set training.epochs=3"
      " --set training.batch_size=16 --set training.optimizer.lr=0.01 --set checkpoint.path="
      " --set 'metrics=[per_class_precision_recall]' --output " +
      out.string() + " " + options);
  Recalls r;
  EXPECT_EQ(result.exit_code, 0) << result.output;
  std::ifstream in(report_path_in(result.output));
  if (!in) return r;
  r.report = json::parse(in);
  const json& table = r.report["metrics"]["per_class_precision_recall"];
  r.rare = table["T-shirt/top"]["recall"].get<double>();
  for (const auto& [name, scores] : table.items()) {
    r.worst = std::min(r.worst, scores["recall"].get<double>());
  }
  return r;
}

TEST(ImbalancedData, ClassWeightsAndTheBalancedSamplerRaiseTheRareClasssRecall) {
  if (!std::filesystem::exists(kFashionMnist / "train-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "Debian's dataset-fashion-mnist is not installed";
  }
  TempDir tmp;
  write_imbalanced_fashion_mnist(tmp / "data");
  const Recalls plain = train(tmp / "data", tmp / "out", "");
  const Recalls weighted =
      train(tmp / "data", tmp / "out", "--set 'training.loss={class_weights: balanced}'");
  const Recalls sampled = train(tmp / "data", tmp / "out", "--set dataset.sampler=balanced");
  EXPECT_LT(plain.rare, 0.2);  // the imbalance bites
  EXPECT_GT(weighted.rare, plain.rare + 0.3);
  EXPECT_GT(sampled.rare, plain.rare + 0.3);
  EXPECT_GT(weighted.worst, plain.worst + 0.2);
  EXPECT_GT(sampled.worst, plain.worst + 0.2);
  // The weights trained with: scikit-learn's n / (classes * count), 3,640 images.
  const json& weights = weighted.report["data"]["class_weights"];
  ASSERT_EQ(weights.size(), 10u);
  EXPECT_NEAR(weights[0].get<double>(), 3640.0 / (10 * 40), 1e-4);
  EXPECT_NEAR(weights[1].get<double>(), 3640.0 / (10 * 400), 1e-5);
  EXPECT_EQ(weighted.report["config"]["training"]["loss"]["class_weights"], "balanced");
  EXPECT_EQ(sampled.report["config"]["dataset"]["sampler"], "balanced");
}

// The short form of the test above, which the sanitizer build runs (that one is left out there):
// a run with balanced weights, focal loss and the sampler completes with a valid report.
TEST(ImbalancedData, ARunWithWeightsFocalLossAndTheSamplerRecordsThem) {
  TempDir tmp;
  const CommandResult result = run_runner(
      (source_dir() / "configs" / "tiny_synthetic.yaml").string() +
      " --quiet --set training.threads=1 --set dataset.sampler=balanced --set dataset.workers=1"
      " --set 'training.loss={class_weights: balanced, focal_gamma: 1.5}'"
      " --set training.label_smoothing=0.1 --output " +
      tmp.path().string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  std::ifstream in(report_path_in(result.output));
  const json report = json::parse(in);
  for (const auto& v : schema_violations(load_schema("report.schema.json"), report))
    ADD_FAILURE() << v.description;
  EXPECT_EQ(report["data"]["class_weights"].size(), 10u);
  EXPECT_TRUE(std::isfinite(report["epochs"][0]["train_loss"].get<double>()));
  EXPECT_EQ(report["config"]["training"]["loss"]["focal_gamma"], 1.5);
}

TEST(ImbalancedData, ClassWeightsOfAnotherCountAreRefusedNamingTheField) {
  const CommandResult result =
      run_runner("validate " + (source_dir() / "configs" / "tiny_synthetic.yaml").string() +
                 " --set 'training.loss={class_weights: [1, 2]}'");
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.output.find("training.loss.class_weights: found 2 weights, expected"),
            std::string::npos)
      << result.output;
}

}  // namespace
}  // namespace runner::testing
