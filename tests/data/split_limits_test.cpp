// dataset.train_limit and test_limit on image files (issue 36: a 10-million-row CSV with
// train_limit: 100 was read and decoded whole, 257 s and 7.3 GB): the limits apply to the file
// list before an image is read, the CSV is read a row at a time, and the images chosen are the
// ones a whole decode cut to its first N gave: the first N files that decode, in list order.
#include <gtest/gtest.h>

#include "csv_dataset_helpers.h"
#include "image_writers.h"
#include "runner/data/csv_rows.h"
#include "runner/data/dataset.h"
#include "runner/data/dataset_format.h"
#include "test_support.h"

namespace runner {
namespace {

namespace fs = std::filesystem;
using ::runner::testing::csv_grey_png;
using ::runner::testing::csv_test_dataset;
using ::runner::testing::TempDir;

// `count` rows after `first`, each naming a file that does not exist: reading any is an error.
std::string missing_rows(std::size_t count) {
  std::string rows;
  for (std::size_t i = 0; i < count; ++i) rows += "images/missing" + std::to_string(i) + ".png,1\n";
  return rows;
}

TEST(SplitLimits, ALimitedCsvReadsNoImageAfterTheLimit) {
  TempDir tmp;
  std::string first;
  for (int i = 0; i < 10; ++i) first += std::string("images/") + "abc"[i % 3] + ".png,0\n";
  DatasetSpec spec =
      csv_test_dataset(tmp.path(), first + missing_rows(200'000), first + missing_rows(1'000));
  spec.train_limit = 10;
  spec.test_limit = 3;
  const DatasetSplits splits = load_dataset(spec);
  EXPECT_EQ(splits.train.size(), 10u);
  EXPECT_EQ(splits.test.size(), 3u);
  EXPECT_EQ(splits.summary["train"]["images"], 10);
  // The classes are the whole file's, as without a limit.
  EXPECT_EQ(splits.train.class_names, (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(planned_dataset_records(spec).train, 10);
  // validate checks the rows loading reads.
  EXPECT_TRUE(format_of(spec).check_files(spec).empty());
}

TEST(SplitLimits, CsvRowsAreCountedAndCheckedWholeButOnlyTheFirstAreKept) {
  TempDir tmp;
  const fs::path file = tmp.write("rows.csv", "path,label\n" + missing_rows(50'000));
  const CsvRows rows = read_csv_rows(file, 3);
  ASSERT_EQ(rows.rows.size(), 3u);
  EXPECT_EQ(rows.rows[2].path, "images/missing2.png");
  EXPECT_EQ(rows.rows[2].line, 4);
  EXPECT_EQ(rows.total, 50'000u);
  EXPECT_TRUE(rows.numbered);
  EXPECT_EQ(read_csv_rows(file, 0).rows.size(), 0u);
  // A bad row past the kept ones is still the file's error, as a whole read gave it.
  tmp.write("rows.csv", "images/a.png,0\n" + missing_rows(1'000) + "images/b.png,-3\n");
  try {
    read_csv_rows(file, 2);
    ADD_FAILURE() << "no error";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("line 1002: found label -3"), std::string::npos)
        << error.what();
  }
}

TEST(SplitLimits, ALimitedImageFolderReadsNoImageAfterTheLimit) {
  TempDir tmp;
  for (const char* name : {"a", "b", "c"}) {
    testing::write_bytes(tmp / "train/cat" / (std::string(name) + ".png"), csv_grey_png(60));
    testing::write_bytes(tmp / "train/dog" / (std::string(name) + ".png"), "not an image");
  }
  testing::write_bytes(tmp / "test/cat/t.png", csv_grey_png(60));
  testing::write_bytes(tmp / "test/dog/u.png", csv_grey_png(90));
  DatasetSpec spec;
  spec.name = "image_folder";
  spec.root = tmp.path().string();
  spec.workers = 2;
  spec.files.image = {3, 8, 8};
  spec.files.train = "train";
  spec.files.test = "test";
  spec.files.cache = (tmp / ".cache").string();
  spec.train_limit = 3;  // the cat images: class by class, as ImageFolder lists them
  const DatasetSplits splits = load_dataset(spec);
  EXPECT_EQ(splits.train.labels, (std::vector<std::int32_t>{0, 0, 0}));
  spec.train_limit = 4;
  EXPECT_NE(testing::csv_load_error(spec).find("train/dog/a.png"), std::string::npos);
}

// With on_bad_file: skip, a limit keeps the first N files that decode, as cutting a whole decode
// did; the files left out before the N-th are warned about, none after it.
TEST(SplitLimits, SkippedFilesAreReplacedByTheNextFilesInOrder) {
  TempDir tmp;
  testing::write_bytes(tmp / "images/d.png", csv_grey_png(200));
  testing::write_bytes(tmp / "images/bad.png", "not an image");
  const std::string rows =
      "images/bad.png,0\nimages/a.png,0\nimages/bad.png,1\nimages/missing.png,1\n"
      "images/b.png,1\nimages/c.png,0\nimages/bad.png,1\nimages/d.png,1\n";
  DatasetSpec spec = csv_test_dataset(tmp.path(), rows);
  spec.files.on_bad_file = OnBadFile::skip;
  const DatasetSplits whole = load_dataset(spec);
  ASSERT_EQ(whole.train.size(), 4u);
  spec.train_limit = 3;
  for (const char* pass : {"decoded", "from the cache"}) {
    const DatasetSplits limited = load_dataset(spec);
    EXPECT_EQ(limited.train.labels, (std::vector<std::int32_t>{0, 1, 0})) << pass;
    EXPECT_EQ(limited.train.images,
              std::vector<std::uint8_t>(whole.train.images.begin(),
                                        whole.train.images.begin() + 3 * 3 * 64))
        << pass;
    EXPECT_EQ(limited.summary["train"]["skipped"], 3) << pass;  // not the bad.png after c.png
    EXPECT_EQ(limited.summary["train"]["decoded_from_cache"], pass[0] == 'f') << pass;
  }
}

// Each limit is its own list of files, so its own fingerprint and decoded cache: a limited run's
// cache is never served to an unlimited one, nor the other way.
TEST(SplitLimits, ALimitedSplitHasItsOwnFingerprintAndCache) {
  TempDir tmp;
  DatasetSpec spec = csv_test_dataset(tmp.path(),
                                      "images/a.png,0\nimages/b.png,1\n"
                                      "images/c.png,0\n");
  spec.train_limit = 2;
  const DatasetSplits limited = load_dataset(spec);
  spec.train_limit = 0;
  const DatasetSplits whole = load_dataset(spec);
  EXPECT_EQ(whole.train.size(), 3u);
  EXPECT_EQ(whole.summary["train"]["decoded_from_cache"], false);
  EXPECT_NE(whole.summary["train"]["sha256"], limited.summary["train"]["sha256"]);
  spec.train_limit = 2;
  const DatasetSplits again = load_dataset(spec);
  EXPECT_EQ(again.train.size(), 2u);
  EXPECT_EQ(again.summary["train"]["decoded_from_cache"], true);
  EXPECT_EQ(again.summary["train"]["sha256"], limited.summary["train"]["sha256"]);
}

}  // namespace
}  // namespace runner
