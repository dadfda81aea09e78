// What the formats that read image files (image_folder, csv) share: their config keys, and a
// labelled file list turned into a split through the image library (decode, resize, cache).
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "runner/data/dataset.h"
#include "runner/data/dataset_format.h"
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

// A split's path: relative to dataset.root unless absolute.
std::filesystem::path split_path(const DatasetSpec& spec, const std::string& split);

// One split of labelled files, relative to `root`, with its class names.
struct LabelledFiles {
  std::filesystem::path root;
  std::vector<LabelledFile> files;
};

// Their labels, in order.
std::vector<std::int32_t> labels_of(const LabelledFiles& files);

// The files of one split (the folder or file at `split`), labelled; `training` for the training
// split, which must have images of every class.
using ListSplit = std::function<LabelledFiles(const std::filesystem::path& split, bool training)>;

// The spec's splits (train, the validation split when given, test unless test: null) listed by
// `list` and decoded as the spec says; skipped files become warnings, each split's counts and
// fingerprint go to the report's summary, and one digest covers them all.
DatasetSplits load_image_splits(const DatasetSpec& spec,
                                const std::vector<std::string>& class_names, const ListSplit& list);

// validate's look at the same splits: each listed by `list` as loading lists it (its problems are
// loading's errors), no image read.
void list_image_splits(const DatasetSpec& spec, const ListSplit& list);

}  // namespace runner
