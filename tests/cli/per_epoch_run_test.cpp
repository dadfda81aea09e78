// dataset.decode: per_epoch end to end: a folder of photos trains to the same numbers as when it
// is decoded once (no augmentation: the same bytes in the same order), with random_resized_crop
// it trains, and the report says how the split was decoded.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "data/image_writers.h"
#include "test_support.h"

namespace runner {
namespace {

using testing::CommandResult;
using testing::run_runner;
using testing::TempDir;

// Two classes of 20x16 and 14x22 photos, told apart by their colour.
std::string photo_folder_config(const std::filesystem::path& tmp) {
  for (const char* split : {"train", "test"}) {
    for (int i = 0; i < 16; ++i) {
      const bool red = i % 2 == 0;
      const int w = red ? 20 : 14, h = red ? 16 : 22;
      std::vector<std::uint16_t> rgb;
      const std::vector<std::uint8_t> noise = testing::test_pixels(w * h, i + 1);
      for (int p = 0; p < w * h; ++p) {
        const std::uint16_t n = noise[p] / 4;
        rgb.insert(rgb.end(), {static_cast<std::uint16_t>(red ? 180 + n : n),
                               static_cast<std::uint16_t>(60 + n),
                               static_cast<std::uint16_t>(red ? n : 180 + n)});
      }
      testing::write_bytes(
          tmp / "photos" / split / (red ? "red" : "blue") / (std::to_string(i) + ".png"),
          testing::png_file(w, h, 2, 8, rgb));
    }
  }
  const std::filesystem::path config = tmp / "photos.yaml";
  std::ofstream(config) << "name: photos\n"
                           "dataset:\n  name: image_folder\n  root: "
                        << (tmp / "photos").string()
                        << "\n  image_size: 8\n  cache: " << (tmp / "cache").string()
                        << "\n  workers: 1\n"
                           "model:\n  layers:\n    - {name: flat, type: flatten}\n"
                           "    - {name: fc, type: linear, out_features: 2}\n"
                           "training: {epochs: 3, batch_size: 4, threads: 1, "
                           "optimizer: {type: sgd, lr: 0.05}}\n";
  return config.string();
}

nlohmann::json report_of(const std::filesystem::path& out) {
  for (const auto& entry : std::filesystem::recursive_directory_iterator(out)) {
    if (entry.path().filename() == "report.json") {
      std::ifstream in(entry.path());
      return nlohmann::json::parse(in);
    }
  }
  return nullptr;
}

TEST(PerEpochRun, TrainsToTheNumbersOfTheSplitDecodedOnce) {
  TempDir tmp;
  const std::string config = photo_folder_config(tmp.path());
  const CommandResult once =
      run_runner(config + " --quiet --output " + (tmp.path() / "once").string());
  ASSERT_EQ(once.exit_code, 0) << once.output;
  const CommandResult per_epoch =
      run_runner(config + " --quiet --set dataset.decode=per_epoch --output " +
                 (tmp.path() / "per_epoch").string());
  ASSERT_EQ(per_epoch.exit_code, 0) << per_epoch.output;
  nlohmann::json a = report_of(tmp.path() / "once"), b = report_of(tmp.path() / "per_epoch");
  ASSERT_EQ(a["epochs"].size(), 3u);
  for (std::size_t e = 0; e < 3; ++e) {
    EXPECT_EQ(a["epochs"][e]["train_loss"], b["epochs"][e]["train_loss"]) << e;
    EXPECT_EQ(a["epochs"][e]["test_accuracy"], b["epochs"][e]["test_accuracy"]) << e;
  }
  EXPECT_EQ(b["data"]["splits"]["train"]["decode"], "per_epoch");
  EXPECT_EQ(a["data"]["splits"]["train"]["decode"], "once");
  EXPECT_EQ(b["config"]["dataset"]["decode"], "per_epoch");
  EXPECT_EQ(a["data"]["sha256"], b["data"]["sha256"]);  // the same files
  // With random_resized_crop from the photos at their size, and a validation split.
  const CommandResult cropped =
      run_runner(config +
                 " --quiet --set dataset.decode=per_epoch --set dataset.validation_split=0.25"
                 " --set 'dataset.augment=[{random_resized_crop: {scale: [0.5, 1]}}]' --output " +
                 (tmp.path() / "cropped").string());
  ASSERT_EQ(cropped.exit_code, 0) << cropped.output;
  nlohmann::json c = report_of(tmp.path() / "cropped");
  EXPECT_GT(c["metrics"]["test_accuracy"].get<double>(), 0.5) << c["metrics"].dump();
}

// The memory bound: 1,500 training photos of 96x96 decoded once hold 41 MB of pixels; decoded
// per epoch they are not held, and the run's peak resident memory is lower by most of that.
TEST(PerEpochRun, PeakMemoryLeavesOutTheTrainingPixels) {
  TempDir tmp;
  constexpr int kPhotos = 1500, kSide = 96;
  const std::vector<std::uint8_t> rgb = testing::test_pixels(kSide * kSide * 3, 5);
  for (int i = 0; i < kPhotos + 4; ++i) {
    const char* split = i < kPhotos ? "train" : "test";
    testing::write_bytes(
        tmp.path() / "photos" / split / (i % 2 ? "a" : "b") / (std::to_string(i) + ".png"),
        testing::rgb_png(kSide, kSide, rgb));
  }
  const std::filesystem::path config = tmp.path() / "photos.yaml";
  std::ofstream(config)
      << "name: photos\ndataset:\n  name: image_folder\n  root: "
      << (tmp.path() / "photos").string()
      << "\n  image_size: 96\n  workers: 1\n  cache: " << (tmp.path() / "cache").string()
      << "\nmodel:\n  layers:\n    - {name: pool, type: global_avg_pool2d}\n"
         "    - {name: flat, type: flatten}\n"
         "    - {name: fc, type: linear, out_features: 2}\n"
         "training: {epochs: 1, batch_size: 16, eval_batch_size: 4, threads: 1}\n";
  auto peak = [&](const std::string& decode) {
    const auto out = tmp.path() / decode;
    const CommandResult run = run_runner(
        config.string() + " --quiet --set dataset.decode=" + decode + " --output " + out.string());
    EXPECT_EQ(run.exit_code, 0) << run.output;
    return report_of(out)["memory"]["peak_rss_bytes"].get<double>();
  };
  const double pixels = static_cast<double>(kPhotos) * 3 * kSide * kSide;
  const double once = peak("once"), per_epoch = peak("per_epoch");
  EXPECT_LT(per_epoch, once - 0.6 * pixels)
      << "once " << once / 1e6 << " MB, per_epoch " << per_epoch / 1e6 << " MB, pixels "
      << pixels / 1e6 << " MB";
}

}  // namespace
}  // namespace runner
