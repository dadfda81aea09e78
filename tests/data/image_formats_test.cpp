// The image_folder and csv dataset formats on files the tests write: class folders and their
// order, extensions, ignored files, conversion and resizing, splits, errors naming the file,
// on_bad_file: skip, test: null, a validation folder, CSV labels and headers, planned counts.
#include <gtest/gtest.h>

#include "image_writers.h"
#include "runner/data/dataset_format.h"
#include "runner/data/dataset_size.h"
#include "runner/util/errors.h"
#include "runner/util/interrupt.h"
#include "test_support.h"

namespace runner {
namespace {

using ::runner::testing::TempDir;
using testing::write_bytes;

// A w x h PNG of one RGB colour.
std::string solid_png(int w, int h, std::uint8_t r, std::uint8_t g, std::uint8_t b) {
  std::vector<std::uint16_t> samples;
  for (int i = 0; i < w * h; ++i) samples.insert(samples.end(), {r, g, b});
  return testing::png_file(w, h, 2, 8, samples);
}

std::string solid_bmp(int w, int h, std::uint8_t r, std::uint8_t g, std::uint8_t b) {
  std::vector<std::uint8_t> rgb;
  for (int i = 0; i < w * h; ++i) rgb.insert(rgb.end(), {r, g, b});
  return testing::bmp_file(w, h, rgb);
}

DatasetSpec image_spec(const std::string& format, const std::filesystem::path& root,
                       const std::string& train, const std::string& test) {
  DatasetSpec spec;
  spec.name = format;
  spec.root = root.string();
  spec.workers = 2;
  spec.files.image = {3, 8, 8};
  spec.files.train = train;
  spec.files.test = test;
  spec.files.cache = (root / ".cache").string();  // hidden: never listed as a class
  return spec;
}

DatasetSpec folder_spec(const std::filesystem::path& root) {
  return image_spec("image_folder", root, "train", "test");
}

DatasetSplits load(const DatasetSpec& spec) {
  return format_of(spec).load(spec);
}

std::string error_of(const DatasetSpec& spec) {
  try {
    load(spec);
  } catch (const UserError& error) {
    return error.what();
  }
  return "no error";
}

// train: two classes in two sizes and every extension; test: one image each.
void write_folder(const std::filesystem::path& root) {
  write_bytes(root / "train/dog/a.png", solid_png(8, 8, 200, 10, 10));
  write_bytes(root / "train/dog/nested/deeper/b.BMP", solid_bmp(12, 9, 200, 10, 10));
  write_bytes(root / "train/dog/notes.txt", "not an image");
  write_bytes(root / "train/dog/.DS_Store", "junk");
  write_bytes(root / "train/dog/.hidden/c.png", solid_png(8, 8, 1, 2, 3));
  write_bytes(root / "train/cat/z.JPG",
              testing::jpeg_file(16, 16, 3, std::vector<std::uint8_t>(16 * 16 * 3, 128), 95));
  std::vector<std::uint8_t> green(5 * 5 * 3);
  for (std::size_t i = 0; i < green.size(); i += 3) green[i + 1] = 250;
  write_bytes(root / "train/cat/y.webp", testing::webp_file(5, 5, 3, green, true));
  write_bytes(root / "test/cat/t.png", solid_png(8, 8, 0, 0, 250));
  write_bytes(root / "test/dog/u.png", solid_png(8, 8, 250, 0, 0));
}

TEST(ImageFolderFormat, ClassesAreTheSortedFoldersAndFilesAreFoundAsImageFolderFindsThem) {
  TempDir tmp;
  write_folder(tmp.path());
  DatasetSpec spec = folder_spec(tmp.path());
  EXPECT_EQ(format_of(spec).class_names(spec), (std::vector<std::string>{"cat", "dog"}));
  DatasetSplits splits = load(spec);
  ASSERT_EQ(splits.train.size(), 4u);  // notes.txt, .DS_Store and .hidden/ left out
  EXPECT_EQ(splits.train.labels, (std::vector<std::int32_t>{0, 0, 1, 1}));
  EXPECT_EQ(splits.test.size(), 2u);
  EXPECT_EQ(splits.train.channels, 3);
  EXPECT_EQ(splits.train.height, 8);
  EXPECT_EQ(splits.train.images.size(), 4u * 3 * 8 * 8);
  // cat/y.webp (5x5 green, upscaled), first in name order: still green everywhere.
  const std::uint8_t* webp = splits.train.images.data();
  EXPECT_EQ(webp[64 + 10], 250);
  EXPECT_EQ(webp[10], 0);
  // dog/nested/deeper/b.BMP (12x9 red, resized): still red.
  const std::uint8_t* bmp = splits.train.images.data() + 3 * 3 * 64;
  EXPECT_EQ(bmp[20], 200);
  EXPECT_EQ(bmp[64 + 20], 10);
  EXPECT_FALSE(splits.digest.empty());
  EXPECT_EQ(splits.summary["train"]["per_class"]["dog"], 2);
  DatasetRecords planned = planned_dataset_records(spec);
  EXPECT_EQ(planned.train, 4);
  EXPECT_EQ(planned.test, 2);
}

// The plan counts what it can list and leaves problems to loading, but a Ctrl-C is no problem of
// the folder: it was once swallowed there, and `validate` walked on and said "valid".
TEST(ImageFolderFormat, CtrlCWhileCountingStopsThePlan) {
  TempDir tmp;
  write_folder(tmp.path());
  const DatasetSpec spec = folder_spec(tmp.path());
  request_interrupt();
  EXPECT_THROW(planned_dataset_records(spec), Interrupted);
  begin_cleanup_after_interrupt();
  EXPECT_EQ(planned_dataset_records(spec).train, 4);
}

TEST(ImageFolderFormat, OneChannelIsPillowsGrayscale) {
  TempDir tmp;
  write_folder(tmp.path());
  DatasetSpec spec = folder_spec(tmp.path());
  spec.files.image.channels = 1;
  DatasetSplits splits = load(spec);
  ASSERT_EQ(splits.test.images.size(), 2u * 64);
  EXPECT_EQ(splits.test.images[0], 28);   // (0, 0, 250): Pillow's (250 * 7471 + 2^15) >> 16
  EXPECT_EQ(splits.test.images[64], 75);  // (250, 0, 0): (250 * 19595 + 2^15) >> 16
}

TEST(ImageFolderFormat, AChangedFileChangesTheFingerprint) {
  TempDir tmp;
  write_folder(tmp.path());
  const std::string before = load(folder_spec(tmp.path())).digest;
  EXPECT_EQ(load(folder_spec(tmp.path())).digest, before);
  write_bytes(tmp / "test/cat/t.png", solid_png(8, 8, 0, 1, 250));
  EXPECT_NE(load(folder_spec(tmp.path())).digest, before);
}

TEST(ImageFolderFormat, AFileThatIsNotAnImageIsAnErrorNamingItOrSkipped) {
  TempDir tmp;
  write_folder(tmp.path());
  write_bytes(tmp / "train/cat/broken.png", "hello, I am text");
  DatasetSpec spec = folder_spec(tmp.path());
  const std::string message = error_of(spec);
  EXPECT_NE(message.find("broken.png"), std::string::npos) << message;
  spec.files.on_bad_file = OnBadFile::skip;
  DatasetSplits splits = load(spec);
  EXPECT_EQ(splits.train.size(), 4u);
  ASSERT_EQ(splits.warnings.size(), 1u);
  EXPECT_NE(splits.warnings[0].find("broken.png"), std::string::npos);
  EXPECT_EQ(splits.summary["train"]["skipped"], 1);
}

TEST(ImageFolderFormat, ATruncatedJpegIsAnErrorNamingIt) {
  TempDir tmp;
  write_folder(tmp.path());
  std::string jpeg = testing::jpeg_file(32, 32, 3, testing::test_pixels(32 * 32 * 3, 7), 90);
  write_bytes(tmp / "train/cat/cut.jpg", jpeg.substr(0, jpeg.size() / 2));
  const std::string message = error_of(folder_spec(tmp.path()));
  EXPECT_NE(message.find("cut.jpg"), std::string::npos) << message;
}

TEST(ImageFolderFormat, FolderProblemsAreClearErrors) {
  {
    TempDir tmp;
    write_folder(tmp.path());
    std::filesystem::remove_all(tmp / "train/cat");
    std::filesystem::create_directories(tmp / "train/cat");
    const std::string message = error_of(folder_spec(tmp.path()));
    EXPECT_NE(message.find("train/cat: found no image files"), std::string::npos) << message;
  }
  {
    TempDir tmp;
    write_folder(tmp.path());
    std::filesystem::create_directories(tmp / "test/bird");
    const std::string message = error_of(folder_spec(tmp.path()));
    EXPECT_NE(message.find("found class folders [bird, cat, dog], expected the training split's "
                           "[cat, dog]"),
              std::string::npos)
        << message;
  }
  {
    TempDir tmp;
    std::filesystem::create_directories(tmp / "train");
    DatasetSpec spec = folder_spec(tmp.path());
    std::string message;
    try {
      format_of(spec).class_names(spec);
    } catch (const UserError& error) {
      message = error.what();
    }
    EXPECT_NE(message.find("found no class folders"), std::string::npos) << message;
  }
}

TEST(ImageFolderFormat, NoTestSetAndAValidationFolder) {
  TempDir tmp;
  write_folder(tmp.path());
  std::filesystem::rename(tmp / "test", tmp / "val");
  DatasetSpec spec = folder_spec(tmp.path());
  spec.files.test_absent = true;
  spec.files.test = "";
  spec.files.validation = "val";
  DatasetSplits splits = load(spec);
  EXPECT_EQ(splits.test.size(), 0u);
  EXPECT_EQ(splits.test.class_names.size(), 2u);
  EXPECT_EQ(splits.validation.size(), 2u);
  EXPECT_EQ(splits.validation.labels, (std::vector<std::int32_t>{0, 1}));
}

TEST(CsvFormat, NamesAsLabelsWithAHeaderAndPathsRelativeToTheCsv) {
  TempDir tmp;
  write_folder(tmp.path());
  write_bytes(tmp / "lists/train.csv",
              "path,label\n../train/dog/a.png,dog\n\"../train/cat/z.JPG\",cat\n"
              "../train/cat/y.webp , cat\n\n");
  write_bytes(tmp / "lists/test.csv", "../test/dog/u.png,dog\n");
  DatasetSpec spec = image_spec("csv", tmp.path(), "lists/train.csv", "lists/test.csv");
  EXPECT_EQ(format_of(spec).class_names(spec), (std::vector<std::string>{"cat", "dog"}));
  DatasetSplits splits = load(spec);
  EXPECT_EQ(splits.train.labels, (std::vector<std::int32_t>{1, 0, 0}));
  EXPECT_EQ(splits.test.labels, (std::vector<std::int32_t>{1}));
  EXPECT_EQ(planned_dataset_records(spec).train, 3);
}

TEST(CsvFormat, IntegerLabelsAreClassNumbers) {
  TempDir tmp;
  write_folder(tmp.path());
  write_bytes(tmp / "train.csv", "train/dog/a.png,2\ntrain/cat/z.JPG,0\n");
  write_bytes(tmp / "test.csv", "test/cat/t.png,1\n");
  DatasetSpec spec = image_spec("csv", tmp.path(), "train.csv", "test.csv");
  EXPECT_EQ(format_of(spec).class_names(spec), (std::vector<std::string>{"0", "1", "2"}));
  DatasetSplits splits = load(spec);
  EXPECT_EQ(splits.train.labels, (std::vector<std::int32_t>{2, 0}));
  EXPECT_EQ(splits.test.labels, (std::vector<std::int32_t>{1}));
}

TEST(CsvFormat, BadRowsAndUnknownLabelsNameTheFileAndLine) {
  TempDir tmp;
  write_folder(tmp.path());
  write_bytes(tmp / "train.csv", "train/dog/a.png,dog\ntrain/cat/z.JPG,cat\n");
  write_bytes(tmp / "test.csv", "test/cat/t.png,cat\ntest/dog/u.png,wolf\n");
  DatasetSpec spec = image_spec("csv", tmp.path(), "train.csv", "test.csv");
  std::string message = error_of(spec);
  EXPECT_NE(message.find("test.csv: line 2: found label 'wolf'"), std::string::npos) << message;
  write_bytes(tmp / "test.csv", "test/cat/t.png;cat\n");
  message = error_of(spec);
  EXPECT_NE(message.find("test.csv: line 1: found 1 field(s)"), std::string::npos) << message;
  write_bytes(tmp / "test.csv", "test/cat/missing.png,cat\n");
  message = error_of(spec);
  EXPECT_NE(message.find("missing.png"), std::string::npos) << message;
}

}  // namespace
}  // namespace runner
