// Data files that do not fit the model (issue 11): images of another shape, more classes than
// the model's outputs, empty splits. Each run stops before training with exit code 2 and a
// message naming the file and both sides, instead of reading past the images or "completing".
#include <gtest/gtest.h>

#include <fstream>

#include "data/data_files.h"
#include "test_support.h"

namespace runner::testing {
namespace {

const char* kConfig = R"(name: bad_data
device: cpu
dataset: {name: DATASET, root: ROOT, workers: 0}
model:
  layers:
    - {name: flat, type: flatten}
    - {name: fc, type: linear, out_features: 10}
training: {epochs: 1, batch_size: 2, optimizer: {type: sgd, lr: 0.01}}
)";

CommandResult run_on(const TempDir& tmp, const std::string& dataset) {
  std::string config = kConfig;
  config.replace(config.find("DATASET"), 7, dataset);
  config.replace(config.find("ROOT"), 4, (tmp / "data").string());
  auto file = tmp.write("config.yaml", config);
  return run_runner(file.string() + " --output " + (tmp / "out").string());
}

void write(const std::filesystem::path& file, const std::string& bytes) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << bytes;
}

// Four IDX files with `count` images of rows x cols each.
void write_idx(const TempDir& tmp, int count, int rows, int cols) {
  std::string pixels(static_cast<std::size_t>(count) * rows * cols, '\x10');
  std::string labels(static_cast<std::size_t>(count), '\x01');
  for (const char* split : {"train", "t10k"}) {
    write(tmp / "data" / (std::string(split) + "-images-idx3-ubyte"),
          idx_images(count, rows, cols, pixels));
    write(tmp / "data" / (std::string(split) + "-labels-idx1-ubyte"), idx_labels(labels));
  }
}

void expect_refused(const CommandResult& result, const std::vector<std::string>& expected) {
  EXPECT_EQ(result.exit_code, 2) << result.output;
  for (const auto& part : expected) {
    EXPECT_NE(result.output.find(part), std::string::npos) << "missing '" << part << "' in:\n"
                                                           << result.output;
  }
  EXPECT_EQ(result.output.find("report: "), std::string::npos) << result.output;
}

TEST(BadData, IdxImagesOfAnotherShapeThanTheModelsInput) {
  TempDir tmp;
  write_idx(tmp, 4, 1, 1);
  expect_refused(run_on(tmp, "mnist"),
                 {"train-images-idx3-ubyte: the images are 1x1x1", "model's input is 1x28x28"});
}

TEST(BadData, AnEmptyIdxSplit) {
  TempDir tmp;
  write_idx(tmp, 0, 28, 28);
  expect_refused(run_on(tmp, "fashion_mnist"),
                 {"train-images-idx3-ubyte: the training split holds no images"});
}

TEST(BadData, CifarWithMoreClassesThanTheModelsOutputs) {
  TempDir tmp;
  auto files = write_cifar10_folder(tmp / "data", {2, 2, 2, 2, 2, 2}, 1);
  std::string records = cifar10_records(2, 7, 20);
  cifar10_label(records, 0) = 19;
  write(tmp / "data" / "data_batch_1.bin", records);
  std::string names;
  for (int k = 0; k < 20; ++k) names += "class" + std::to_string(k) + "\n";
  write(tmp / "data" / "batches.meta.txt", names);
  expect_refused(run_on(tmp, "cifar10"),
                 {"the data has 20 classes, but the model's output layer gives 10 values"});
}

TEST(BadData, EmptyCifarFiles) {
  TempDir tmp;
  write_cifar10_folder(tmp / "data", {0, 0, 0, 0, 0, 2}, 1);
  expect_refused(run_on(tmp, "cifar10"), {"the training split holds no images"});
}

TEST(BadData, ACifarFileThatIsAFifoIsNotReadForever) {
  TempDir tmp;
  write_cifar10_folder(tmp / "data", {2, 2, 2, 2, 2, 2}, 1);
  std::filesystem::remove(tmp / "data" / "data_batch_3.bin");
  ASSERT_EQ(run_command("mkfifo " + (tmp / "data" / "data_batch_3.bin").string()).exit_code, 0);
  expect_refused(run_on(tmp, "cifar10"),
                 {"data_batch_3.bin: is not a regular file (a FIFO, a socket or a device), "
                  "expected a CIFAR-10 binary batch"});
}

TEST(BadData, AnIdxFileThatIsAFifoIsNotReadForever) {
  TempDir tmp;
  write_idx(tmp, 4, 28, 28);
  std::filesystem::remove(tmp / "data" / "train-labels-idx1-ubyte");
  ASSERT_EQ(run_command("mkfifo " + (tmp / "data" / "train-labels-idx1-ubyte").string()).exit_code,
            0);
  expect_refused(run_on(tmp, "mnist"),
                 {"train-labels-idx1-ubyte: is not a regular file (a FIFO, a socket or a device), "
                  "expected an IDX file"});
}

TEST(BadData, AnIdxFileLinkedToDevZeroIsRefused) {
  TempDir tmp;
  write_idx(tmp, 4, 28, 28);
  std::filesystem::remove(tmp / "data" / "t10k-images-idx3-ubyte");
  std::filesystem::create_symlink("/dev/zero", tmp / "data" / "t10k-images-idx3-ubyte.gz");
  expect_refused(run_on(tmp, "mnist"),
                 {"t10k-images-idx3-ubyte.gz: is not a regular file (a FIFO, a socket or a "
                  "device), expected a gzipped IDX file"});
}

// Synthetic data of 2 GB, within the machine's memory (so it validates) but not within the
// process's 1 GB address space: the failed allocation says what the dataset needs.
TEST(BadData, DataLargerThanTheProcessMayAllocateSaysHowMuchItNeeds) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves more address space than the limit";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  GTEST_SKIP() << "AddressSanitizer reserves more address space than the limit";
#endif
#endif
  TempDir tmp;
  auto config = tmp.write("config.yaml", R"(name: big_data
device: cpu
dataset:
  name: synthetic
  workers: 0
  synthetic: {channels: 1, height: 1000, width: 1000, classes: 4, train_count: 2000, test_count: 10}
model:
  layers:
    - {name: flat, type: flatten}
    - {name: fc, type: linear, out_features: 4}
training: {epochs: 1, batch_size: 2, threads: 1, optimizer: {type: sgd, lr: 0.01}}
)");
  auto result = run_command("ulimit -v 1000000 && " + std::string(RUNNER_BINARY) + " " +
                            config.string() + " --output " + (tmp / "out").string());
  expect_refused(result, {"config.yaml: out of memory loading the synthetic dataset, which needs "
                          "about 2010008040 bytes (1.9 GiB)"});
}

}  // namespace
}  // namespace runner::testing
