// CIFAR-10 reader: round trips of real-format records, subsets, class names and each error.
#include "runner/data/cifar10.h"

#include <gtest/gtest.h>

#include <fstream>

#include "data_files.h"
#include "runner/util/errors.h"
#include "test_support.h"

namespace runner {
namespace {

using testing::TempDir;

std::string error_of(const std::filesystem::path& root) {
  try {
    load_cifar10(root);
  } catch (const UserError& error) {
    return error.what();
  }
  return "no error";
}

// Concatenated labels and pixels of records made by cifar10_records.
void split_records(const std::string& records, std::vector<std::int32_t>& labels,
                   std::vector<std::uint8_t>& images) {
  for (std::size_t r = 0; r < records.size() / 3073; ++r) {
    labels.push_back(static_cast<std::uint8_t>(records[r * 3073]));
    images.insert(images.end(), records.begin() + r * 3073 + 1, records.begin() + (r + 1) * 3073);
  }
}

TEST(Cifar10, RoundTripOfSubsetsKeepsBytesLabelsAndOrder) {
  TempDir dir;
  // Users cut subsets: files with any whole number of records, one even empty.
  auto files = testing::write_cifar10_folder(dir.path(), {3, 1, 0, 2, 5, 4}, 11);
  dir.write("batches.meta.txt", "plane\ncar\n\nbird\ncat\ndeer\ndog\nfrog\nhorse\nship\ntruck\n\n");
  DatasetSplits splits = load_cifar10(dir.path());

  std::vector<std::int32_t> train_labels, test_labels;
  std::vector<std::uint8_t> train_images, test_images;
  for (int i = 0; i < 5; ++i) split_records(files[i], train_labels, train_images);
  split_records(files[5], test_labels, test_images);

  ASSERT_EQ(splits.train.size(), 11u);
  ASSERT_EQ(splits.test.size(), 4u);
  EXPECT_EQ(splits.train.labels, train_labels);
  EXPECT_EQ(splits.train.images, train_images);
  EXPECT_EQ(splits.test.labels, test_labels);
  EXPECT_EQ(splits.test.images, test_images);
  EXPECT_EQ(splits.train.channels, 3);
  EXPECT_EQ(splits.train.height, 32);
  EXPECT_EQ(splits.train.width, 32);
  EXPECT_EQ(splits.train.image_bytes(), 3072u);
  EXPECT_EQ(splits.train.name, "cifar10");
  const std::vector<std::string> names = {"plane", "car",  "bird",  "cat",  "deer",
                                          "dog",   "frog", "horse", "ship", "truck"};
  EXPECT_EQ(splits.train.class_names, names);
  EXPECT_EQ(splits.test.class_names, names);
}

TEST(Cifar10, StandardClassNamesWithoutMetaFile) {
  TempDir dir;
  testing::write_cifar10_folder(dir.path(), {1, 1, 1, 1, 1, 1}, 3);
  auto names = load_cifar10(dir.path()).train.class_names;
  ASSERT_EQ(names.size(), 10u);
  EXPECT_EQ(names.front(), "airplane");
  EXPECT_EQ(names[1], "automobile");
  EXPECT_EQ(names.back(), "truck");
}

TEST(Cifar10, SizeThatIsNotWholeRecordsNamesFileAndSizes) {
  TempDir dir;
  testing::write_cifar10_folder(dir.path(), {1, 1, 1, 1, 1, 1}, 5);
  std::ofstream(dir / "data_batch_3.bin", std::ios::binary)
      << testing::cifar10_records(2, 9) << "12345";
  std::string message = error_of(dir.path());
  EXPECT_NE(message.find((dir / "data_batch_3.bin").string()), std::string::npos) << message;
  EXPECT_NE(message.find("found 6151 bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("3073-byte records"), std::string::npos) << message;
}

TEST(Cifar10, LabelOutOfRangeNamesFileAndRecord) {
  TempDir dir;
  testing::write_cifar10_folder(dir.path(), {1, 1, 1, 1, 1, 1}, 5);
  std::string records = testing::cifar10_records(4, 8);
  testing::cifar10_label(records, 2) = 10;
  std::ofstream(dir / "test_batch.bin", std::ios::binary) << records;
  std::string message = error_of(dir.path());
  EXPECT_NE(message.find((dir / "test_batch.bin").string()), std::string::npos) << message;
  EXPECT_NE(message.find("record 2: found label 10, but " + (dir / "batches.meta.txt").string() +
                         " is absent, so the 10 official CIFAR-10 class names are used "
                         "(labels 0..9)"),
            std::string::npos)
      << message;
}

// A three-class set in CIFAR-10's format: three names in batches.meta.txt, labels 0..2.
std::vector<std::string> write_three_classes(const TempDir& dir) {
  std::vector<std::string> files;
  const char* names[] = {"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin",
                         "data_batch_4.bin", "data_batch_5.bin", "test_batch.bin"};
  for (int i = 0; i < 6; ++i) {
    files.push_back(testing::cifar10_records(14 + i, 30 + i, 3));
    dir.write(names[i], files.back());
  }
  dir.write("batches.meta.txt", "cat\ndog\nbird\n");
  return files;
}

TEST(Cifar10, ThreeNamesInTheMetaFileMakeThreeClasses) {
  TempDir dir;
  auto files = write_three_classes(dir);
  DatasetSplits splits = load_cifar10(dir.path());
  EXPECT_EQ(splits.train.class_names, (std::vector<std::string>{"cat", "dog", "bird"}));
  EXPECT_EQ(splits.test.classes(), 3);
  std::vector<std::int32_t> labels;
  std::vector<std::uint8_t> images;
  split_records(files[5], labels, images);
  EXPECT_EQ(splits.test.labels, labels);
  EXPECT_EQ(read_cifar10_class_names(dir.path()).size(), 3u);
  EXPECT_EQ(splits.files.back(), dir / "batches.meta.txt");
}

// Issue 24: ten classes named `cat` collapsed per_class_accuracy into {"cat": 0.0}.
TEST(Cifar10, DuplicateClassNamesAreRefusedNamingTheLines) {
  TempDir dir;
  write_three_classes(dir);
  dir.write("batches.meta.txt", "cat\ndog\n\ncat\n");
  std::string message = error_of(dir.path());
  EXPECT_NE(message.find((dir / "batches.meta.txt").string() +
                         ": lines 1 and 4 both name the class 'cat', expected a different name on "
                         "each line"),
            std::string::npos)
      << message;
}

TEST(Cifar10, LabelBeyondTheMetaFileNamesTheRecordAndTheMetaFile) {
  TempDir dir;
  auto files = write_three_classes(dir);
  testing::cifar10_label(files[1], 12) = 7;  // valid for CIFAR-10, not for three classes
  dir.write("data_batch_2.bin", files[1]);
  const std::string message = error_of(dir.path());
  EXPECT_NE(
      message.find((dir / "data_batch_2.bin").string() + ": record 12: found label 7, but " +
                   (dir / "batches.meta.txt").string() + " lists 3 class names (labels 0..2)"),
      std::string::npos)
      << message;
  EXPECT_NE(message.find("list one name per class in " + (dir / "batches.meta.txt").string()),
            std::string::npos)
      << message;
}

TEST(Cifar10, MissingFolderSaysWhereToPutTheFiles) {
  TempDir dir;
  std::string message = error_of(dir / "nowhere");
  EXPECT_NE(message.find((dir / "nowhere").string()), std::string::npos) << message;
  EXPECT_NE(message.find("not found"), std::string::npos) << message;
  EXPECT_NE(message.find("by hand"), std::string::npos) << message;
  EXPECT_NE(message.find("https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("download: true"), std::string::npos) << message;
}

TEST(Cifar10, MissingFileIsNamed) {
  TempDir dir;
  testing::write_cifar10_folder(dir.path(), {1, 1, 1, 1, 1, 1}, 5);
  std::filesystem::remove(dir / "test_batch.bin");
  std::filesystem::remove(dir / "data_batch_4.bin");
  EXPECT_EQ(missing_cifar10_files(dir.path()),
            (std::vector<std::string>{"data_batch_4.bin", "test_batch.bin"}));
  std::string message = error_of(dir.path());
  EXPECT_NE(message.find((dir / "data_batch_4.bin").string()), std::string::npos) << message;
  EXPECT_NE(message.find("2 of 6 missing: data_batch_4.bin, test_batch.bin"), std::string::npos)
      << message;
  EXPECT_NE(message.find("by hand"), std::string::npos) << message;
}

}  // namespace
}  // namespace runner
