// A labelled image dataset held in memory as bytes, and the loader entry point.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runner/data/dataset_spec.h"

namespace runner {

struct EncodedImages;  // encoded_images.h

struct Dataset {
  std::string name;
  std::string source;   // the file or folder it was read from, for messages ("synthetic": none)
  std::string setting;  // the config field that chose it ("dataset.test", "dataset.root")
  int channels = 0, height = 0, width = 0;
  std::vector<std::string> class_names;
  std::vector<std::uint8_t> images;  // (N, C, H, W), row-major; empty when `encoded`
  std::vector<std::int32_t> labels;  // (N), each in [0, classes)
  // dataset.decode: per_epoch: the training split's files, decoded as batches are made (the
  // loader resizes, or random_resized_crop crops, each to C x H x W); null: `images` holds them.
  std::shared_ptr<const EncodedImages> encoded = nullptr;

  std::size_t size() const { return labels.size(); }
  std::size_t image_bytes() const { return static_cast<std::size_t>(channels) * height * width; }
  int classes() const { return static_cast<int>(class_names.size()); }
};

struct DatasetSplits {
  Dataset train;
  Dataset test;  // may be empty: a run without a test set is measured by validation only
  std::vector<std::filesystem::path> files;  // every file read, for the data's fingerprint
  Dataset validation{};  // held out of train (dataset.validation_split), or a format's own
  // Formats of many files (image folders) fingerprint them themselves: one digest, not a list.
  std::string digest{};                 // "": the digest over `files`
  nlohmann::json summary = nullptr;     // what the report's `data` block adds (counts per class)
  std::vector<std::string> warnings{};  // one line each (a skipped file), printed by the caller
};

// Loads both splits as the spec says (downloading CIFAR-10 first when asked), applying the
// train/test limits. Errors are UserErrors naming the file, what was expected and what was found.
DatasetSplits load_dataset(const DatasetSpec& spec);

}  // namespace runner
