// What the formats that read image files (image_folder, csv) share: their config keys, and a
// labelled file list turned into a split through the image library (decode, resize, cache).
#pragma once

#include <filesystem>
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

// A split's path: relative to dataset.root unless absolute.
std::filesystem::path split_path(const DatasetSpec& spec, const std::string& split);

// One split of labelled files, relative to `root`, with its class names.
struct LabelledFiles {
  std::filesystem::path root;
  std::vector<LabelledFile> files;
};

// Decodes `files` as the spec says into a Dataset named `source`; skipped files become warnings
// and counts in `splits`. `which` (train, test, validation) names the split in the summary.
Dataset decode_split(const DatasetSpec& spec, const LabelledFiles& files,
                     const std::vector<std::string>& class_names, const std::string& which,
                     DatasetSplits& splits);

// A split without images (test: null), of the spec's image and `class_names`.
Dataset empty_split(const DatasetSpec& spec, const std::vector<std::string>& class_names);

// One digest over the splits' fingerprints, set on `splits` (the report's data.sha256).
void finish_image_splits(DatasetSplits& splits);

}  // namespace runner
