// What the formats that read image files (image_folder, csv) share: their config keys, and a
// labelled file list turned into a split through the image library (decode, resize, cache).
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "runner/data/dataset.h"
#include "runner/data/dataset_format.h"
#include "runner/data/dataset_size.h"
#include "runner/data/image_set.h"

namespace runner {

// The entry's keys, read/write and image shape; `train` and `test` are the splits' default
// names under the root (folders or files).
DatasetFormat image_files_format_base();
// Reads the keys of image_files_format_base, with the splits' defaults.
void read_image_files_settings(const SettingsReader& settings, DatasetSpec& spec,
                               const std::string& train, const std::string& test);
// Writes them as resolved (the base's `write`; a format with keys of its own adds those).
void write_image_files_settings(const DatasetSpec& spec, nlohmann::json& out);

// The images in a split (the folder or file at the path), without reading one.
using CountSplit = std::int64_t (*)(const std::filesystem::path& split);

// The records the spec's splits hold as `count` counts them (0 for one that cannot be read:
// loading names the problem), the image's bytes, and what decoding one image may hold.
DatasetRecords image_files_records(const DatasetSpec& spec, CountSplit count);

// A split's path: relative to dataset.root unless absolute.
std::filesystem::path split_path(const DatasetSpec& spec, const std::string& split);

// One split of labelled files, relative to `root`, with its class names.
struct LabelledFiles {
  std::filesystem::path root;
  std::vector<LabelledFile> files;
};

// Their labels, in order.
std::vector<std::int32_t> labels_of(const LabelledFiles& files);

// The first `max_files` files of one split (the folder or file at `split`), labelled, in the
// split's order; `training` for the training split, which must have images of every class.
using ListSplit = std::function<LabelledFiles(const std::filesystem::path& split, bool training,
                                              std::size_t max_files)>;

// The files to list for a split of dataset.train_limit or test_limit `limit`: all for 0.
std::size_t files_to_list(std::int64_t limit);

// The spec's splits (train, the validation split when given, test unless test: null) listed by
// `list` and decoded as the spec says; skipped files become warnings, each split's counts and
// fingerprint go to the report's summary, and one digest covers them all. dataset.train_limit
// and test_limit apply before any image is read: a limited split is its first N files that
// decode (as if every file were decoded and the first N kept), and no file after those is
// opened, except with on_bad_file skip those tried in place of the files left out.
DatasetSplits load_image_splits(const DatasetSpec& spec,
                                const std::vector<std::string>& class_names, const ListSplit& list);

// validate's look at the same splits: each listed by `list` as loading lists it (its problems are
// loading's errors), no image read.
void list_image_splits(const DatasetSpec& spec, const ListSplit& list);

}  // namespace runner
