// The csv format's paths stay under the dataset root unless dataset.allow_outside_root says
// otherwise (a probe once read absolute, ".." and symlinked rows without a word), and a file that
// is not an image is described without echoing its bytes.
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

TEST(CsvPaths, APathLeadingOutsideTheRootIsAnErrorNamingTheRowAndTheOption) {
  TempDir tmp, elsewhere;
  testing::write_bytes(elsewhere / "outside.png", csv_grey_png(7));
  const fs::path root = tmp / "set";
  fs::create_directories(root);
  fs::create_symlink(elsewhere / "outside.png", root / "link.png");
  const std::string absolute = (elsewhere / "outside.png").string();
  const std::string dotdot = fs::relative(elsewhere / "outside.png", root).string();
  for (const std::string& path : {absolute, dotdot, std::string("link.png")}) {
    SCOPED_TRACE(path);
    const DatasetSpec spec = csv_test_dataset(root, "images/a.png,0\n" + path + ",1\n");
    expect_message_parts(csv_load_error(spec),
                         {(root / "train.csv").string(), "line 2", "'" + path + "'",
                          "outside the dataset root", "dataset.allow_outside_root"});
  }
}

// `runner validate` refuses what `run` would: it checks the rows without reading an image.
TEST(CsvPaths, ValidateChecksThePathsOfEverySplit) {
  TempDir tmp;
  DatasetSpec spec = csv_test_dataset(tmp.path(), "images/a.png,0\nimages/b.png,1\n",
                                      "images/a.png,0\n../elsewhere.png,1\n");
  const DatasetFormat& format = format_of(spec);
  ASSERT_TRUE(format.check_files);
  std::string message = "no error";
  try {
    format.check_files(spec);
  } catch (const UserError& error) {
    message = error.what();
  }
  expect_message_parts(message, {(tmp / "test.csv").string(), "line 2", "'../elsewhere.png'",
                                 "dataset.allow_outside_root"});
  spec.files.allow_outside_root = true;
  EXPECT_TRUE(format.check_files(spec).empty());
}

TEST(CsvPaths, PathsUnderTheRootMayGoUpFromTheCsvsFolder) {
  TempDir tmp;
  DatasetSpec spec = csv_test_dataset(tmp.path(), "images/a.png,0\n");
  testing::write_bytes(tmp / "lists/train.csv", "../images/a.png,0\n../images/b.png,1\n");
  spec.files.train = "lists/train.csv";
  EXPECT_EQ(load_csv_dataset(spec).train.size(), 2u);
}

TEST(CsvPaths, AllowOutsideRootReadsThem) {
  TempDir tmp, elsewhere;
  testing::write_bytes(elsewhere / "outside.png", csv_grey_png(7));
  DatasetSpec spec = csv_test_dataset(
      tmp.path(), "images/a.png,0\n" + (elsewhere / "outside.png").string() + ",1\n");
  spec.files.allow_outside_root = true;
  const DatasetSplits splits = load_csv_dataset(spec);
  ASSERT_EQ(splits.train.size(), 2u);
  EXPECT_EQ(splits.train.images[3 * 64], 7);
  // The option is in the resolved config (reproduce reads it back).
  nlohmann::json written;
  format_of(spec).write(spec, written);
  EXPECT_EQ(written["allow_outside_root"], true);
}

// A file that is not an image is described, not echoed: its first bytes may be a secret's.
TEST(CsvPaths, ABadFileIsDescribedWithoutItsBytes) {
  TempDir tmp;
  DatasetSpec spec = csv_test_dataset(tmp.path(), "images/a.png,0\nsecret.png,1\n");
  testing::write_bytes(tmp / "secret.png", "SECRET: a password\n");
  const std::string message = csv_load_error(spec);
  expect_message_parts(message, {"secret.png", "not an image (no known signature"});
  EXPECT_EQ(message.find("SECR"), std::string::npos) << message;
}

}  // namespace
}  // namespace runner
