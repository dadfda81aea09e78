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
    - {name: fc, type: linear, out_features: OUTPUTS}
training: {epochs: 1, batch_size: 2, optimizer: {type: sgd, lr: 0.01}}
)";

// A run of a linear model with `outputs` values per image on `dataset` at tmp/data.
CommandResult run_on(const TempDir& tmp, const std::string& dataset, int outputs = 10) {
  std::string config = kConfig;
  config.replace(config.find("DATASET"), 7, dataset);
  config.replace(config.find("ROOT"), 4, (tmp / "data").string());
  config.replace(config.find("OUTPUTS"), 7, std::to_string(outputs));
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
                 {"train-images-idx3-ubyte: the training split (dataset.root) holds no images"});
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
                 {"the output layer 'fc' gives 10 values per image, but the dataset has 20 "
                  "classes because " +
                  (tmp / "data" / "batches.meta.txt").string() + " lists 20 class names"});
}

// Three names in batches.meta.txt (issue 23): with a 10-way model and with a 3-way one whose
// data holds a label of 7, one message that says what was found, naming batches.meta.txt.
void write_three_class_cifar(const TempDir& tmp, int stray_label) {
  write_cifar10_folder(tmp / "data", {2, 2, 2, 2, 2, 2}, 1);
  std::string records = cifar10_records(14, 3, 3);
  if (stray_label >= 0) cifar10_label(records, 12) = static_cast<std::uint8_t>(stray_label);
  write(tmp / "data" / "data_batch_2.bin", records);
  for (const char* name : {"data_batch_1.bin", "data_batch_3.bin", "data_batch_4.bin",
                           "data_batch_5.bin", "test_batch.bin"}) {
    write(tmp / "data" / name, cifar10_records(2, 4, 3));
  }
  write(tmp / "data" / "batches.meta.txt", "cat\ndog\nbird\n");
}

TEST(BadData, ThreeCifarClassNamesWithATenWayModel) {
  for (int stray_label : {-1, 7}) {  // the labels do not matter: the model is refused first
    TempDir tmp;
    write_three_class_cifar(tmp, stray_label);
    const CommandResult result = run_on(tmp, "cifar10", 10);
    expect_refused(result,
                   {"the output layer 'fc' gives 10 values per image, but the dataset "
                    "has 3 classes because " +
                        (tmp / "data" / "batches.meta.txt").string() + " lists 3 class names",
                    "out_features: 3"});
    EXPECT_EQ(result.output.find("label 7"), std::string::npos) << result.output;
  }
}

TEST(BadData, ThreeCifarClassNamesWithAThreeWayModelAndALabelOfSeven) {
  TempDir tmp;
  write_three_class_cifar(tmp, 7);
  const CommandResult result = run_on(tmp, "cifar10", 3);
  expect_refused(
      result,
      {(tmp / "data" / "data_batch_2.bin").string() + ": record 12: found label 7, but " +
       (tmp / "data" / "batches.meta.txt").string() + " lists 3 class names (labels 0..2)"});
  EXPECT_EQ(result.output.find("values per image"), std::string::npos) << result.output;
}

TEST(BadData, Cifar100CoarseLabelsWithAFineModel) {
  TempDir tmp;
  write_cifar100_folder(tmp / "data", 4, 2, 1);
  auto config = tmp.write("config.yaml", R"(name: bad_data
device: cpu
dataset: {name: cifar100, root: )" + (tmp / "data").string() +
                                             R"(, label: coarse, workers: 0}
model:
  layers:
    - {name: flat, type: flatten}
    - {name: fc, type: linear, out_features: 100}
training: {epochs: 1, batch_size: 2, optimizer: {type: sgd, lr: 0.01}}
)");
  expect_refused(run_runner(config.string() + " --output " + (tmp / "out").string()),
                 {"gives 100 values per image, but the dataset has 20 classes because " +
                  (tmp / "data" / "coarse_label_names.txt").string() +
                  " is absent, so the 20 official CIFAR-100 class names are used"});
}

TEST(BadData, EmptyCifarFiles) {
  TempDir tmp;
  write_cifar10_folder(tmp / "data", {0, 0, 0, 0, 0, 2}, 1);
  expect_refused(run_on(tmp, "cifar10"), {"the training split (dataset.root) holds no images"});
}

TEST(BadData, ACifarFileThatIsAFifoIsNotReadForever) {
  TempDir tmp;
  write_cifar10_folder(tmp / "data", {2, 2, 2, 2, 2, 2}, 1);
  std::filesystem::remove(tmp / "data" / "data_batch_3.bin");
  ASSERT_EQ(run_command("mkfifo " + (tmp / "data" / "data_batch_3.bin").string()).exit_code, 0);
  expect_refused(run_on(tmp, "cifar10"),
                 {"data_batch_3.bin: is not a regular file (a FIFO, a socket or a device), "
                  "expected a CIFAR-10 binary file"});
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

// Runs synthetic data of the settings `synthetic` through a model of `layers` in a process of
// 1 GB of address space (ulimit -v): within the machine's memory, so that it validates, but not
// within the process's.
CommandResult run_in_one_gigabyte(const TempDir& tmp, const std::string& synthetic,
                                  const std::string& layers) {
  const auto config =
      tmp.write("config.yaml",
                "name: in_one_gigabyte\ndevice: cpu\ndataset:\n  name: synthetic\n  "
                "workers: 0\n  synthetic: " +
                    synthetic + "\nmodel:\n  layers:\n" + layers +
                    "training: {epochs: 1, batch_size: 2, threads: 1, optimizer: {type: sgd, "
                    "lr: 0.01}}\n");
  return run_command("ulimit -v 1000000 && " + std::string(RUNNER_BINARY) + " " + config.string() +
                     " --output " + (tmp / "out").string());
}

// Synthetic data of 2 GB: the failed allocation says what the dataset needs.
TEST(BadData, DataLargerThanTheProcessMayAllocateSaysHowMuchItNeeds) {
  if (kAddressSanitizer)
    GTEST_SKIP() << "AddressSanitizer reserves more address space than the limit";
  TempDir tmp;
  expect_refused(run_in_one_gigabyte(tmp,
                                     "{channels: 1, height: 1000, width: 1000, classes: 4, "
                                     "train_count: 2000, test_count: 10}",
                                     "    - {name: flat, type: flatten}\n"
                                     "    - {name: fc, type: linear, out_features: 4}\n"),
                 {"config.yaml: out of memory loading the synthetic dataset, which needs about "
                  "2010008040 bytes (1.9 GiB)"});
}

// 100,000 classes: the output layer's 40 million parameters fail to allocate, and the message
// names the model's size and the classes, not only the batch size (it once said "lower
// training.batch_size").
TEST(BadData, AModelOfManyClassesLargerThanTheProcessMayAllocateNamesTheModel) {
  if (kAddressSanitizer)
    GTEST_SKIP() << "AddressSanitizer reserves more address space than the limit";
  TempDir tmp;
  expect_refused(
      run_in_one_gigabyte(tmp,
                          "{channels: 1, height: 12, width: 12, classes: 100000, "
                          "train_count: 8, test_count: 2}",
                          "    - {name: conv1, type: conv2d, out_channels: 4, kernel: 3}\n"
                          "    - {name: flat, type: flatten}\n"
                          "    - {name: fc, type: linear, out_features: 100000}\n"),
      {"out of host memory (std::bad_alloc)", "the model's size",
       "the output layer has one value per class"});
}

}  // namespace
}  // namespace runner::testing
