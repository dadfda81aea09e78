// The data a run read is in its report (each file's size and SHA-256), `runner reproduce` says
// when the files have changed since, and a known dataset read under another name is refused.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "data/data_files.h"
#include "runner/util/digest.h"
#include "test_support.h"

namespace runner::testing {
namespace {

nlohmann::json report_of(const CommandResult& result) {
  auto at = result.output.rfind("report: ");
  if (at == std::string::npos) return nullptr;
  std::string path = result.output.substr(at + 8);
  std::ifstream in(path.substr(0, path.find('\n')));
  return in ? nlohmann::json::parse(in) : nlohmann::json();
}

// Four small IDX files; `shade` sets every pixel, so a second call changes the images.
void write_idx(const std::filesystem::path& root, char shade) {
  std::filesystem::create_directories(root);
  std::string pixels(4 * 28 * 28, shade), labels = {1, 2, 3, 4};
  for (const char* split : {"train", "t10k"}) {
    std::ofstream(root / (std::string(split) + "-images-idx3-ubyte"), std::ios::binary)
        << idx_images(4, 28, 28, pixels);
    std::ofstream(root / (std::string(split) + "-labels-idx1-ubyte"), std::ios::binary)
        << idx_labels(labels);
  }
}

std::string config(const TempDir& tmp) {
  return tmp
      .write("c.yaml",
             "name: fp\ndevice: cpu\ndataset: {name: mnist, root: " + (tmp / "data").string() +
                 ", workers: 0}\nmodel:\n  layers:\n    - {name: flat, type: flatten}\n"
                 "    - {name: fc, type: linear, out_features: 10}\n"
                 "training: {epochs: 1, batch_size: 2, optimizer: {type: sgd}}\n")
      .string();
}

TEST(DataFingerprint, TheReportNamesEveryFileReadWithItsHash) {
  TempDir tmp;
  write_idx(tmp / "data", 7);
  std::string env = "XDG_CACHE_HOME=" + (tmp / "cache").string() + " ";
  auto result = run_command(env + RUNNER_BINARY + " " + config(tmp) + " --quiet --output " +
                            (tmp / "out").string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  nlohmann::json data = report_of(result)["data"];
  ASSERT_EQ(data["files"].size(), 4u) << data.dump();
  for (const auto& file : data["files"]) {
    std::filesystem::path path = file["path"].get<std::string>();
    EXPECT_EQ(file["bytes"], std::filesystem::file_size(path));
    EXPECT_EQ(file["sha256"], sha256_hex_of_file(path));
  }
  EXPECT_EQ(data["name"], "mnist");
  EXPECT_TRUE(std::filesystem::exists(tmp / "cache" / "runner" / "data-fingerprints.json"));
}

// A broken cache is rebuilt or left alone, never fatal (issue 24: a folder in its place aborted
// the run with "basic_filebuf::underflow").
TEST(DataFingerprint, ABrokenCacheIsIgnored) {
  TempDir tmp;
  write_idx(tmp / "data", 7);
  const auto cache = tmp / "cache" / "runner" / "data-fingerprints.json";
  const std::string env = "XDG_CACHE_HOME=" + (tmp / "cache").string() + " ";
  const std::string run =
      env + RUNNER_BINARY + " " + config(tmp) + " --quiet --output " + (tmp / "out").string();
  std::filesystem::create_directories(cache);  // a folder where the cache file belongs
  auto in_a_folder = run_command(run);
  EXPECT_EQ(in_a_folder.exit_code, 0) << in_a_folder.output;
  EXPECT_TRUE(std::filesystem::is_directory(cache));
  std::filesystem::remove(cache);
  for (const std::string& text : {std::string(100'000, '[') + std::string(100'000, ']'),
                                  std::string("{\"a\": not json"), std::string("[1, 2]")}) {
    tmp.write("cache/runner/data-fingerprints.json", text);
    auto broken = run_command(run);
    EXPECT_EQ(broken.exit_code, 0) << broken.output;
    EXPECT_EQ(report_of(broken)["data"]["files"].size(), 4u);
    EXPECT_TRUE(nlohmann::json::parse(std::ifstream(cache)).is_object());  // rebuilt
  }
}

TEST(DataFingerprint, ReproduceSaysWhenTheDataChanged) {
  TempDir tmp;
  write_idx(tmp / "data", 7);
  auto first = run_runner(config(tmp) + " --quiet --output " + (tmp / "out").string());
  ASSERT_EQ(first.exit_code, 0) << first.output;
  std::string report = first.output.substr(first.output.rfind("report: ") + 8);
  report = report.substr(0, report.find('\n'));
  write_idx(tmp / "data", 9);  // the same shapes, other pixels
  auto again = run_runner("reproduce " + report + " --output " + (tmp / "out").string());
  EXPECT_EQ(again.exit_code, 1) << again.output;
  EXPECT_NE(again.output.find("/data/sha256"), std::string::npos) << again.output;
  EXPECT_NE(again.output.find("NOT reproduced: the rerun read other data"), std::string::npos)
      << again.output;
  // Each changed file is named with its size and hash then and now; the labels are unchanged.
  EXPECT_NE(again.output.find("the data differs from the original run's:"), std::string::npos)
      << again.output;
  const std::string images = (tmp / "data" / "train-images-idx3-ubyte").string();
  EXPECT_NE(again.output.find(images + ": 3152 bytes, sha256 "), std::string::npos) << again.output;
  EXPECT_EQ(again.output.find("train-labels-idx1-ubyte:"), std::string::npos) << again.output;
}

TEST(DataFingerprint, AReportWrittenBeforeFingerprintsStillReproduces) {
  TempDir tmp;
  write_idx(tmp / "data", 7);
  auto first = run_runner(config(tmp) + " --quiet --output " + (tmp / "out").string());
  ASSERT_EQ(first.exit_code, 0) << first.output;
  nlohmann::json report = report_of(first);
  report.erase("data");
  std::ofstream(tmp / "old.json") << report.dump();
  auto again = run_runner("reproduce " + (tmp / "old.json").string() + " --output " +
                          (tmp / "out").string());
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("reproduced: every exact metric matches"), std::string::npos)
      << again.output;
}

TEST(DataFingerprint, FashionMnistFilesNamedMnistAreRefused) {
  const std::filesystem::path debian = "/usr/share/datasets/fashion-mnist";
  if (!std::filesystem::exists(debian)) GTEST_SKIP() << "Debian's dataset-fashion-mnist is absent";
  auto result = run_runner((source_dir() / "configs" / "lenet_fashion_mnist.yaml").string() +
                           " --set dataset.name=mnist --set dataset.root=" + debian.string());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("these are fashion_mnist's files, but dataset.name is mnist"),
            std::string::npos)
      << result.output;
}

TEST(DataFingerprint, GunzippedFashionMnistFilesNamedMnistAreRefused) {
  const std::filesystem::path debian = "/usr/share/datasets/fashion-mnist";
  if (!std::filesystem::exists(debian)) GTEST_SKIP() << "Debian's dataset-fashion-mnist is absent";
  TempDir tmp;
  ASSERT_EQ(run_command("mkdir -p " + (tmp / "data").string() + " && for f in " + debian.string() +
                        "/*.gz; do gunzip -c $f > " + (tmp / "data").string() +
                        "/$(basename $f .gz); done")
                .exit_code,
            0);
  auto result =
      run_runner((source_dir() / "configs" / "lenet_fashion_mnist.yaml").string() +
                 " --set dataset.name=mnist --set dataset.root=" + (tmp / "data").string() +
                 " --output " + (tmp / "out").string());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("these are fashion_mnist's files, but dataset.name is mnist"),
            std::string::npos)
      << result.output;
}

}  // namespace
}  // namespace runner::testing
