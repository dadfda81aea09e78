// The dataset's size in memory, known before loading: from the spec, the IDX headers and the
// CIFAR-10 and CIFAR-100 files' sizes, after the limits; what loading then holds agrees.
#include "runner/data/dataset_size.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <limits>

#include "data/data_files.h"
#include "runner/data/dataset.h"
#include "runner/util/process_stats.h"
#include "runner/util/threads.h"
#include "test_support.h"

namespace runner {
namespace {

std::int64_t loaded_bytes(const DatasetSplits& splits) {
  std::int64_t bytes = 0;
  for (const Dataset* split : {&splits.train, &splits.test}) {
    bytes += static_cast<std::int64_t>(split->images.size() + 4 * split->labels.size());
  }
  return bytes;
}

TEST(DatasetSize, SyntheticFromItsSettingsAfterTheLimits) {
  DatasetSpec spec;
  spec.name = "synthetic";
  spec.synthetic = {2, 5, 7, 3, 40, 9};
  spec.train_limit = 30;
  DatasetRecords records = planned_dataset_records(spec);
  EXPECT_EQ(records.train, 30);
  EXPECT_EQ(records.test, 9);
  EXPECT_EQ(records.image_bytes, 70);
  EXPECT_EQ(records.bytes(), 39 * 74);
  EXPECT_EQ(records.bytes(), loaded_bytes(load_dataset(spec)));
}

// Issue 36: decoding image files holds up to dataset.max_image_bytes in each worker, before
// training; the plan counts it, for as many workers as decode at once.
TEST(DatasetSize, ImageFilesPlanTheirDecodingWorkers) {
  testing::TempDir dir;
  DatasetSpec spec;
  spec.name = "csv";
  spec.root = dir.path().string();
  spec.files.image = {3, 8, 8};
  spec.files.train = "train.csv";
  spec.files.test = "test.csv";
  dir.write("train.csv", "a.png,0\nb.png,1\nc.png,0\n");
  dir.write("test.csv", "a.png,0\n");
  spec.files.max_image_bytes = 100 << 20;
  spec.workers = 8;
  DatasetRecords records = planned_dataset_records(spec);
  EXPECT_EQ(records.decoding_bytes, 100 << 20);
  EXPECT_EQ(planned_decoding_workers(spec, records), 3) << "one per image at most";
  spec.workers = 2;
  EXPECT_EQ(planned_decoding_workers(spec, records), 2);
  spec.name = "synthetic";
  EXPECT_EQ(planned_dataset_records(spec).decoding_bytes, 0) << "nothing to decode";
}

// Without dataset.workers, decoding takes every core but no more workers than a quarter of the
// memory holds at max_image_bytes each: a many-core machine of little memory is not refused.
TEST(DatasetSize, DefaultDecodingWorkersFitAQuarterOfTheMemory) {
  DatasetSpec spec;
  spec.files.max_image_bytes = kDefaultMaxImageBytes;
  const int all = image_decoding_workers(spec);
  EXPECT_GE(all, 1);
  EXPECT_LE(all, available_cores());
  EXPECT_LE(std::int64_t{all} * spec.files.max_image_bytes,
            std::max<std::int64_t>(physical_memory_bytes() / 4, spec.files.max_image_bytes));
  spec.files.max_image_bytes = physical_memory_bytes();  // one image may take all of it
  EXPECT_EQ(image_decoding_workers(spec), 1);
  spec.workers = 3;  // asked for: as asked
  EXPECT_EQ(image_decoding_workers(spec), 3);
}

TEST(DatasetSize, IdxFromTheHeadersOfGzippedFiles) {
  testing::TempDir dir;
  for (auto [split, count] : {std::pair{"train", 5}, std::pair{"t10k", 3}}) {
    testing::write_gzip(dir / (std::string(split) + "-images-idx3-ubyte.gz"),
                        testing::idx_images(count, 28, 28, std::string(count * 784, '\x20')));
    testing::write_gzip(dir / (std::string(split) + "-labels-idx1-ubyte.gz"),
                        testing::idx_labels(std::string(count, '\x01')));
  }
  DatasetSpec spec;
  spec.name = "mnist";
  spec.root = dir.path().string();
  DatasetRecords records = planned_dataset_records(spec);
  EXPECT_EQ(records.train, 5);
  EXPECT_EQ(records.test, 3);
  EXPECT_EQ(records.bytes(), loaded_bytes(load_dataset(spec)));
}

TEST(DatasetSize, IdxHeadersDeclaringHugeImagesCountWhatLoadingWouldRead) {
  testing::TempDir dir;
  std::ofstream(dir / "train-images-idx3-ubyte", std::ios::binary)
      << testing::idx_images(1'000'000, 4096, 4096, "");
  DatasetSpec spec;
  spec.name = "fashion_mnist";
  spec.root = dir.path().string();
  DatasetRecords records = planned_dataset_records(spec);
  EXPECT_EQ(records.train, 1'000'000);
  EXPECT_EQ(records.test, 10'000);  // missing: the official count
  EXPECT_EQ(records.image_bytes, 4096 * 4096);
  EXPECT_EQ(records.bytes(), std::int64_t{1'010'000} * (4096 * 4096 + 4));
}

TEST(DatasetSize, CifarFromTheFilesSizes) {
  testing::TempDir dir;
  testing::write_cifar10_folder(dir / "cifar10", {3, 1, 0, 2, 5, 4}, 11);
  testing::write_cifar100_folder(dir / "cifar100", 11, 4, 11);  // 3074-byte records
  for (const CifarLabel label : {CifarLabel::fine, CifarLabel::coarse}) {
    for (const char* name : {"cifar10", "cifar100"}) {
      SCOPED_TRACE(name);
      DatasetSpec spec;
      spec.name = name;
      spec.root = (dir / name).string();
      spec.label = label;
      spec.test_limit = 2;
      DatasetRecords records = planned_dataset_records(spec);
      EXPECT_EQ(records.train, 11);
      EXPECT_EQ(records.test, 2);
      EXPECT_EQ(records.bytes(), loaded_bytes(load_dataset(spec)));
    }
  }
}

TEST(DatasetSize, MissingFilesCountAsTheOfficialDataset) {
  for (const char* name : {"cifar10", "cifar100"}) {
    SCOPED_TRACE(name);
    DatasetSpec spec;
    spec.name = name;
    spec.root = "/nonexistent";
    DatasetRecords records = planned_dataset_records(spec);
    EXPECT_EQ(records.train, 50'000);
    EXPECT_EQ(records.test, 10'000);
    EXPECT_EQ(records.bytes(), 60'000 * (3072 + 4));
  }
}

TEST(DatasetSize, OverflowSaturates) {
  DatasetRecords records{std::numeric_limits<std::int64_t>::max() / 2, 10, 4096};
  EXPECT_EQ(records.bytes(), std::numeric_limits<std::int64_t>::max());
}

}  // namespace
}  // namespace runner
