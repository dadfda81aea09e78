// CIFAR-100 reader: fine and coarse labels of real-format records, names files and the official
// names, and each error naming the file (record counts: dataset_size_test).
#include "runner/data/cifar100.h"

#include <gtest/gtest.h>

#include <fstream>

#include "data_files.h"
#include "runner/data/dataset_format.h"
#include "runner/util/errors.h"
#include "test_support.h"

namespace runner {
namespace {

using testing::TempDir;

std::string error_of(const std::filesystem::path& root, CifarLabel label = CifarLabel::fine) {
  try {
    load_cifar100(root, label);
  } catch (const UserError& error) {
    return error.what();
  }
  return "no error";
}

// Label byte `which` (0 coarse, 1 fine) and the pixels of records made by cifar100_records.
void split_records(const std::string& records, int which, std::vector<std::int32_t>& labels,
                   std::vector<std::uint8_t>& images) {
  for (std::size_t r = 0; r < records.size() / 3074; ++r) {
    labels.push_back(static_cast<std::uint8_t>(records[r * 3074 + which]));
    images.insert(images.end(), records.begin() + r * 3074 + 2, records.begin() + (r + 1) * 3074);
  }
}

TEST(Cifar100, FineAndCoarseLabelsAreReadFromTheirOwnBytes) {
  TempDir dir;
  auto files = testing::write_cifar100_folder(dir.path(), 7, 3, 21);
  for (const CifarLabel label : {CifarLabel::fine, CifarLabel::coarse}) {
    SCOPED_TRACE(cifar_label_name(label));
    const int which = label == CifarLabel::fine ? 1 : 0;
    DatasetSplits splits = load_cifar100(dir.path(), label);
    ASSERT_EQ(splits.train.size(), 7u);
    ASSERT_EQ(splits.test.size(), 3u);
    for (const auto& [split, bytes] :
         {std::pair{&splits.train, files[0]}, std::pair{&splits.test, files[1]}}) {
      std::vector<std::int32_t> labels;
      std::vector<std::uint8_t> images;
      split_records(bytes, which, labels, images);
      EXPECT_EQ(split->labels, labels);
      EXPECT_EQ(split->images, images);
    }
    EXPECT_EQ(splits.train.name, "cifar100");
    EXPECT_EQ(splits.train.image_bytes(), 3072u);
    EXPECT_EQ(splits.train.classes(), label == CifarLabel::fine ? 100 : 20);
    EXPECT_EQ(splits.files,
              (std::vector<std::filesystem::path>{dir / "train.bin", dir / "test.bin"}));
  }
  // The two label bytes differ somewhere, or the test could not tell them apart.
  std::vector<std::int32_t> fine, coarse;
  std::vector<std::uint8_t> ignored;
  split_records(files[0], 1, fine, ignored);
  split_records(files[0], 0, coarse, ignored);
  EXPECT_NE(fine, coarse);
}

TEST(Cifar100, OfficialNamesWithoutNamesFiles) {
  TempDir dir;
  testing::write_cifar100_folder(dir.path(), 1, 1, 3);
  const auto fine = load_cifar100(dir.path(), CifarLabel::fine).train.class_names;
  ASSERT_EQ(fine.size(), 100u);
  EXPECT_EQ(fine[0], "apple");
  EXPECT_EQ(fine[1], "aquarium_fish");
  EXPECT_EQ(fine[58], "pickup_truck");
  EXPECT_EQ(fine[99], "worm");
  const auto coarse = load_cifar100(dir.path(), CifarLabel::coarse).test.class_names;
  ASSERT_EQ(coarse.size(), 20u);
  EXPECT_EQ(coarse[0], "aquatic_mammals");
  EXPECT_EQ(coarse[9], "large_man-made_outdoor_things");
  EXPECT_EQ(coarse[19], "vehicles_2");
}

TEST(Cifar100, NamesFilesAreReadAndFingerprinted) {
  TempDir dir;
  testing::write_cifar100_folder(dir.path(), 2, 2, 3);
  std::string fine, coarse;
  for (int k = 0; k < 100; ++k) fine += "fine" + std::to_string(k) + "\r\n";
  for (int k = 0; k < 20; ++k) coarse += "coarse" + std::to_string(k) + "\n\n";
  dir.write("fine_label_names.txt", fine);
  dir.write("coarse_label_names.txt", coarse);
  DatasetSplits splits = load_cifar100(dir.path(), CifarLabel::fine);
  EXPECT_EQ(splits.train.class_names.front(), "fine0");
  EXPECT_EQ(splits.train.class_names.back(), "fine99");
  EXPECT_EQ(splits.files.back(), dir / "fine_label_names.txt");
  splits = load_cifar100(dir.path(), CifarLabel::coarse);
  ASSERT_EQ(splits.test.class_names.size(), 20u);
  EXPECT_EQ(splits.test.class_names[19], "coarse19");
  EXPECT_EQ(splits.files.back(), dir / "coarse_label_names.txt");
}

TEST(Cifar100, ANamesFileWithFewerNamesMakesFewerClasses) {
  TempDir dir;
  std::string records = testing::cifar100_records(4, 5, /*fine=*/3);
  dir.write("train.bin", records);
  dir.write("test.bin", testing::cifar100_records(2, 6, 3));
  dir.write("fine_label_names.txt", "x\ny\nz\n");
  DatasetSplits splits = load_cifar100(dir.path(), CifarLabel::fine);
  EXPECT_EQ(splits.train.class_names, (std::vector<std::string>{"x", "y", "z"}));
  EXPECT_EQ(splits.train.labels[2], testing::cifar100_fine_label(records, 2));
}

TEST(Cifar100, PartialRecordNamesFileAndSizes) {
  TempDir dir;
  testing::write_cifar100_folder(dir.path(), 1, 1, 5);
  dir.write("train.bin", testing::cifar100_records(2, 9) + "1234567");
  const std::string message = error_of(dir.path());
  EXPECT_NE(message.find((dir / "train.bin").string()), std::string::npos) << message;
  EXPECT_NE(message.find("found 6155 bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("3074-byte records (2 label bytes + 3x32x32 pixels)"), std::string::npos)
      << message;
  EXPECT_NE(message.find("cut after 7 bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("binary version of CIFAR-100"), std::string::npos) << message;
}

// A fine label beyond a names file of three, a coarse one beyond the official twenty: each is
// refused only when its byte is read, naming the data file, the record and where the names are.
TEST(Cifar100, LabelBeyondTheNamesNamesTheRecordAndTheNames) {
  TempDir dir;
  dir.write("train.bin", testing::cifar100_records(2, 4, 3, 3));
  std::string records = testing::cifar100_records(3, 8, 3, 3);
  testing::cifar100_fine_label(records, 1) = 7;
  testing::cifar100_coarse_label(records, 2) = 20;
  dir.write("test.bin", records);
  dir.write("fine_label_names.txt", "a\nb\nc\n");
  const std::string test_bin = (dir / "test.bin").string();
  std::string message = error_of(dir.path(), CifarLabel::fine);
  EXPECT_NE(
      message.find(test_bin + ": record 1: found fine label 7, but " +
                   (dir / "fine_label_names.txt").string() + " lists 3 class names (labels 0..2)"),
      std::string::npos)
      << message;
  message = error_of(dir.path(), CifarLabel::coarse);
  EXPECT_NE(message.find(test_bin + ": record 2: found coarse label 20, but " +
                         (dir / "coarse_label_names.txt").string() +
                         " is absent, so the 20 official CIFAR-100 class names are used "
                         "(labels 0..19)"),
            std::string::npos)
      << message;
}

TEST(Cifar100, MissingFileSaysWhereToGetTheArchive) {
  TempDir dir;
  testing::write_cifar100_folder(dir.path(), 1, 1, 5);
  std::filesystem::remove(dir / "test.bin");
  std::string message = error_of(dir.path());
  EXPECT_NE(message.find((dir / "test.bin").string()), std::string::npos) << message;
  EXPECT_NE(message.find("CIFAR-100 file not found (1 of 2 missing: test.bin)"), std::string::npos)
      << message;
  EXPECT_NE(message.find("download https://www.cs.toronto.edu/~kriz/cifar-100-binary.tar.gz"),
            std::string::npos)
      << message;
  EXPECT_NE(
      message.find("move the files of its cifar-100-binary folder into " + dir.path().string()),
      std::string::npos)
      << message;
  message = error_of(dir / "nowhere");
  EXPECT_NE(message.find("CIFAR-100 folder not found, expected a folder holding train.bin, "
                         "test.bin"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("download: true"), std::string::npos) << message;
}

TEST(Cifar100, TheFormatsClassNamesFollowTheLabel) {
  TempDir dir;
  DatasetSpec spec;
  spec.name = "cifar100";
  spec.root = dir.path().string();
  const DatasetFormat& format = format_of(spec);
  EXPECT_EQ(format.class_names(spec).size(), 100u);
  EXPECT_NE(format.classes_origin(spec).find("fine_label_names.txt is absent"), std::string::npos);
  spec.label = CifarLabel::coarse;
  EXPECT_EQ(format.class_names(spec).size(), 20u);
  dir.write("coarse_label_names.txt", "p\nq\n");
  EXPECT_EQ(format.class_names(spec), (std::vector<std::string>{"p", "q"}));
  EXPECT_EQ(format.classes_origin(spec),
            (dir / "coarse_label_names.txt").string() + " lists 2 class names");
}

}  // namespace
}  // namespace runner
