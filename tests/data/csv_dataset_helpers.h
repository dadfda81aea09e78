// What the csv format's tests share: a small csv dataset written to a folder, and its load error.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "runner/data/dataset.h"
#include "runner/data/dataset_spec.h"

namespace runner::testing {

// An 8x8 PNG of one grey level.
std::string csv_grey_png(std::uint16_t level);

// A csv dataset at `root`: train.csv and test.csv of the given rows, 8x8 RGB images; a.png,
// b.png and c.png under root/images.
DatasetSpec csv_test_dataset(const std::filesystem::path& root, const std::string& train_rows,
                             const std::string& test_rows = "images/a.png,0\n");

DatasetSplits load_csv_dataset(const DatasetSpec& spec);

// The UserError loading it gives, or "no error".
std::string csv_load_error(const DatasetSpec& spec);

// Each of `parts` is in `message`.
void expect_message_parts(const std::string& message, const std::vector<std::string>& parts);

}  // namespace runner::testing
