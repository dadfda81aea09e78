// End-to-end runs of the runner binary on CIFAR files in the real binary format, written here
// (issue 23): CIFAR-10 with three class names in batches.meta.txt and a 3-way classifier, and a
// tiny CIFAR-100 with its fine and coarse labels.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "test_support.h"

namespace runner::testing {
namespace {

// `count` records of a learnable task: each label byte random below its entry of `classes` (at
// most 4 for byte `learn`), the quadrant of the image numbered by label byte `learn` bright and
// the others dark (plus noise), in every channel.
std::string learnable_records(int count, const std::vector<int>& classes, int learn,
                              std::mt19937& rng) {
  std::string out;
  for (int r = 0; r < count; ++r) {
    std::vector<int> labels;
    for (int bound : classes) labels.push_back(static_cast<int>(rng() % bound));
    for (int label : labels) out += static_cast<char>(label);
    for (int p = 0; p < 3 * 32 * 32; ++p) {
      const int quadrant = (p % 1024 / 32 >= 16) * 2 + (p % 32 >= 16);
      out +=
          static_cast<char>((quadrant == labels[learn] ? 200 : 30) + static_cast<int>(rng() % 40));
    }
  }
  return out;
}

void write(const std::filesystem::path& file, const std::string& bytes) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << bytes;
}

// A linear classifier of `outputs` values on `dataset` (a flow mapping), 2 epochs.
std::filesystem::path write_config(const TempDir& tmp, const std::string& dataset, int outputs) {
  return tmp.write("config.yaml", "name: cifar_classes\ndevice: cpu\ndataset: " + dataset +
                                      "\nmodel:\n  layers:\n"
                                      "    - {name: flat, type: flatten}\n"
                                      "    - {name: fc, type: linear, out_features: " +
                                      std::to_string(outputs) +
                                      "}\ntraining: {epochs: 2, batch_size: 8, threads: 1, "
                                      "optimizer: {type: sgd, lr: 0.001}}\n");
}

nlohmann::json run_and_read_report(const TempDir& tmp, const std::filesystem::path& config) {
  CommandResult run = run_runner(config.string() + " --quiet --output " + (tmp / "out").string());
  EXPECT_EQ(run.exit_code, 0) << run.output;
  std::ifstream in(report_path_in(run.output));
  if (!in) return nlohmann::json();
  return nlohmann::json::parse(in);
}

// The run completed with a `classes`-way model that learned the task: reading the label from
// another byte, or the names from another file, would not.
void expect_learned(const nlohmann::json& report, int classes, const std::string& a_class) {
  ASSERT_TRUE(report.is_object());
  EXPECT_EQ(report["status"], "completed");
  EXPECT_EQ(report["model"]["classes"], classes);
  EXPECT_TRUE(report["metrics"]["per_class_accuracy"].contains(a_class))
      << report["metrics"].dump();
  EXPECT_GT(report["metrics"]["test_accuracy"].get<double>(), 0.9) << report["metrics"].dump();
}

// A tiny CIFAR-100 (train.bin, test.bin) whose images follow label byte `learn` of `classes`
// (the bounds of the coarse and the fine byte), trained as `dataset` says.
nlohmann::json train_tiny_cifar100(const TempDir& tmp, const std::vector<int>& classes, int learn,
                                   const std::string& dataset, int outputs) {
  std::mt19937 rng(6);
  write(tmp / "data" / "train.bin", learnable_records(200, classes, learn, rng));
  write(tmp / "data" / "test.bin", learnable_records(40, classes, learn, rng));
  return run_and_read_report(tmp, write_config(tmp,
                                               "{name: cifar100, root: " + (tmp / "data").string() +
                                                   ", " + dataset + "workers: 0}",
                                               outputs));
}

TEST(CifarClasses, ThreeClassCifar10TrainsAThreeWayClassifier) {
  TempDir tmp;
  std::mt19937 rng(5);
  for (const char* name : {"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin",
                           "data_batch_4.bin", "data_batch_5.bin", "test_batch.bin"}) {
    write(tmp / "data" / name, learnable_records(40, {3}, 0, rng));
  }
  write(tmp / "data" / "batches.meta.txt", "cat\ndog\nbird\n");
  const nlohmann::json report = run_and_read_report(
      tmp,
      write_config(tmp, "{name: cifar10, root: " + (tmp / "data").string() + ", workers: 0}", 3));
  expect_learned(report, 3, "bird");
  EXPECT_EQ(report["metrics"]["per_class_accuracy"].size(), 3u);
}

TEST(CifarClasses, TinyCifar100TrainsOnTheFineLabelsByDefault) {
  TempDir tmp;
  // Four fine classes named in fine_label_names.txt; the coarse byte is noise up to 19.
  write(tmp / "data" / "fine_label_names.txt", "apple\npear\nplum\nfig\n");
  const nlohmann::json report = train_tiny_cifar100(tmp, {20, 4}, 1, "", 4);
  expect_learned(report, 4, "plum");
  EXPECT_EQ(report["config"]["dataset"]["label"], "fine");
}

TEST(CifarClasses, TinyCifar100TrainsOnTheCoarseLabels) {
  TempDir tmp;
  // The official 20 coarse names (no names file); the fine byte is noise up to 99.
  const nlohmann::json report = train_tiny_cifar100(tmp, {4, 100}, 0, "label: coarse, ", 20);
  expect_learned(report, 20, "aquatic_mammals");
  EXPECT_EQ(report["config"]["dataset"]["label"], "coarse");
}

}  // namespace
}  // namespace runner::testing
