// The csv format's rows as a user means them (a probe once got each wrong without a word): the
// header told by its content, not by file extensions; labels all class numbers or all class
// names, never negative, "01" the class 1; a NUL byte in a path refused; a UTF-8 BOM dropped.
#include <gtest/gtest.h>

#include "csv_dataset_helpers.h"
#include "image_writers.h"
#include "runner/data/dataset_format.h"
#include "runner/util/errors.h"
#include "test_support.h"

namespace runner {
namespace {

namespace fs = std::filesystem;
using ::runner::testing::csv_grey_png;
using ::runner::testing::csv_load_error;
using ::runner::testing::csv_test_dataset;
using ::runner::testing::expect_message_parts;
using ::runner::testing::load_csv_dataset;
using ::runner::testing::TempDir;

TEST(CsvRows, AFirstRowThatIsADataRowIsDataWhateverItsExtension) {
  TempDir tmp;
  testing::write_bytes(tmp / "images/no_extension", csv_grey_png(50));
  const DatasetSpec spec =
      csv_test_dataset(tmp.path(), "images/no_extension,0\nimages/b.png,1\nimages/c.png,0\n");
  EXPECT_EQ(load_csv_dataset(spec).train.labels, (std::vector<std::int32_t>{0, 1, 0}));
}

TEST(CsvRows, AHeaderIsAFirstRowWhoseLabelIsNoLabelOfTheRowsBelow) {
  TempDir tmp;
  DatasetSpec spec =
      csv_test_dataset(tmp.path(), "filename,class\nimages/a.png,1\nimages/b.png,0\n",
                       "path,label\n"
                       "images/c.png,"
                       "1\n");
  DatasetSplits splits = load_csv_dataset(spec);
  EXPECT_EQ(splits.train.labels, (std::vector<std::int32_t>{1, 0}));
  EXPECT_EQ(splits.test.labels, (std::vector<std::int32_t>{1}));
  // With class names: a first label that no row below uses, and a path that is no file.
  testing::write_bytes(tmp / "train.csv", "image,species\nimages/a.png,cat\nimages/b.png,dog\n");
  testing::write_bytes(tmp / "test.csv", "images/c.png,dog\n");
  splits = load_csv_dataset(spec);
  EXPECT_EQ(splits.train.labels, (std::vector<std::int32_t>{0, 1}));
  // A first data row of a class of its own is data: its file is there.
  testing::write_bytes(tmp / "train.csv",
                       "images/c.png,bird\nimages/a.png,cat\nimages/b.png,dog\n");
  EXPECT_EQ(format_of(spec).class_names(spec), (std::vector<std::string>{"bird", "cat", "dog"}));
}

TEST(CsvRows, MixedLabelKindsAreRefusedNamingTheRows) {
  TempDir tmp;
  const DatasetSpec spec =
      csv_test_dataset(tmp.path(), "images/a.png,0\nimages/b.png,1\nimages/c.png,cat\n");
  expect_message_parts(csv_load_error(spec),
                       {"train.csv", "line 3", "'cat'", "line 1", "class numbers", "class names"});
}

TEST(CsvRows, ANegativeLabelIsRefusedNamingTheRow) {
  TempDir tmp;
  std::string rows;
  for (int k = 0; k <= 10; ++k) rows += "images/a.png," + std::to_string(k) + "\n";
  const DatasetSpec spec = csv_test_dataset(tmp.path(), rows + "images/b.png,-1\n");
  expect_message_parts(csv_load_error(spec), {"train.csv", "line 12", "-1", "0 or more"});
}

TEST(CsvRows, IntegerLabelsStayNumericPastNine) {
  TempDir tmp;
  std::string rows;
  for (int k = 10; k >= 0; --k) rows += "images/a.png," + std::to_string(k) + "\n";
  const DatasetSpec spec = csv_test_dataset(tmp.path(), rows, "images/b.png,10\nimages/c.png,2\n");
  const DatasetSplits splits = load_csv_dataset(spec);
  EXPECT_EQ(splits.train.class_names.at(10), "10");
  EXPECT_EQ(splits.train.labels.front(), 10);
  EXPECT_EQ(splits.test.labels, (std::vector<std::int32_t>{10, 2}));
}

TEST(CsvRows, LeadingZerosAreTheSameClassNumber) {
  TempDir tmp;
  const DatasetSpec spec = csv_test_dataset(
      tmp.path(), "images/a.png,0\nimages/b.png,01\nimages/c.png,1\n", "images/a.png,001\n");
  const DatasetSplits splits = load_csv_dataset(spec);
  EXPECT_EQ(splits.train.class_names, (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(splits.train.labels, (std::vector<std::int32_t>{0, 1, 1}));
  EXPECT_EQ(splits.test.labels, (std::vector<std::int32_t>{1}));
}

// A class number the training file lacks is said as a number, the leading zeros it was written
// with named (it was "found label '07', expected one of the classes"); so is a name it lacks.
TEST(CsvRows, AClassTheTrainingFileLacksIsNamedAsANumberOrAName) {
  TempDir tmp;
  DatasetSpec spec = csv_test_dataset(
      tmp.path(), "images/a.png,0\nimages/b.png,01\nimages/c.png,3\n", "images/a.png,07\n");
  expect_message_parts(csv_load_error(spec),
                       {"test.csv: line 1: found class number 7 (written '07'), but the training "
                        "file's class numbers go up to 3",
                        "give it rows of that class, or correct the label"});
  spec = csv_test_dataset(tmp.path(), "images/a.png,cat\nimages/b.png,dog\n",
                          "images/a.png,cat\nimages/c.png,wolf\n");
  expect_message_parts(csv_load_error(spec), {"test.csv: line 2: found label 'wolf', which is "
                                              "none of the 2 class names of the training file"});
}

// A class number of 100,000 or more is refused naming the row (an id column, not 100,001
// outputs); up to 99,999 the class count reaches the model's check, which says where it came from.
TEST(CsvRows, ClassNumbersStayBelowTheMaximum) {
  TempDir tmp;
  DatasetSpec spec = csv_test_dataset(tmp.path(), "images/a.png,0\nimages/b.png,100000\n");
  expect_message_parts(csv_load_error(spec),
                       {"train.csv: line 2: found label 100000, expected class numbers below "
                        "100000"});
  spec = csv_test_dataset(tmp.path(), "images/a.png,0\nimages/b.png,99999\nimages/c.png,7\n");
  EXPECT_EQ(format_of(spec).class_names(spec).size(), 100'000u);
  ASSERT_NE(format_of(spec).classes_origin, nullptr);
  EXPECT_EQ(format_of(spec).classes_origin(spec),
            (tmp / "train.csv").string() +
                "'s largest class number is 99999 (line 2), and label k is output k");
}

TEST(CsvRows, ANulByteInAPathIsRefusedNamingTheRow) {
  TempDir tmp;
  using namespace std::string_literals;
  const DatasetSpec spec = csv_test_dataset(tmp.path(), "images/a.png,0\nimages/b.png\0.txt,1\n"s);
  expect_message_parts(csv_load_error(spec), {"train.csv", "line 2", "NUL"});
}

TEST(CsvRows, AByteOrderMarkIsNotPartOfTheFirstPath) {
  TempDir tmp;
  const DatasetSpec spec =
      csv_test_dataset(tmp.path(), "\xEF\xBB\xBFimages/a.png,0\nimages/b.png,1\n",
                       "\xEF\xBB\xBFpath,label\nimages/c.png,1\n");
  const DatasetSplits splits = load_csv_dataset(spec);
  EXPECT_EQ(splits.train.labels, (std::vector<std::int32_t>{0, 1}));
  EXPECT_EQ(splits.test.labels, (std::vector<std::int32_t>{1}));
}

}  // namespace
}  // namespace runner
