#include "csv_dataset_helpers.h"

#include <gtest/gtest.h>

#include "image_writers.h"
#include "runner/data/dataset_format.h"
#include "runner/util/errors.h"

namespace runner::testing {

namespace fs = std::filesystem;

std::string csv_grey_png(std::uint16_t level) {
  return png_file(8, 8, 0, 8, std::vector<std::uint16_t>(64, level));
}

DatasetSpec csv_test_dataset(const fs::path& root, const std::string& train_rows,
                             const std::string& test_rows) {
  for (const char* name : {"a", "b", "c"}) {
    write_bytes(root / "images" / (std::string(name) + ".png"), csv_grey_png(100));
  }
  write_bytes(root / "train.csv", train_rows);
  write_bytes(root / "test.csv", test_rows);
  DatasetSpec spec;
  spec.name = "csv";
  spec.root = root.string();
  spec.workers = 1;
  spec.files.image = {3, 8, 8};
  spec.files.train = "train.csv";
  spec.files.test = "test.csv";
  spec.files.cache = (root / ".cache").string();
  return spec;
}

DatasetSplits load_csv_dataset(const DatasetSpec& spec) {
  return format_of(spec).load(spec);
}

std::string csv_load_error(const DatasetSpec& spec) {
  try {
    load_csv_dataset(spec);
  } catch (const UserError& error) {
    return error.what();
  }
  return "no error";
}

void expect_message_parts(const std::string& message, const std::vector<std::string>& parts) {
  for (const std::string& part : parts) {
    EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
  }
}

}  // namespace runner::testing
