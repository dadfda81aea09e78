// CIFAR-100 in its official binary format (the cifar-100-binary folder): 3074-byte records
// (coarse label, fine label, then 3x32x32 CHW pixels) in train.bin and test.bin, class names in
// fine_label_names.txt and coarse_label_names.txt.
#pragma once

#include <filesystem>

#include "runner/data/cifar_records.h"
#include "runner/data/dataset.h"
#include "runner/data/dataset_spec.h"

namespace runner {

inline constexpr const char* kCifar100Url =
    "https://www.cs.toronto.edu/~kriz/cifar-100-binary.tar.gz";
inline constexpr const char* kCifar100Md5 = "03b5dce01913d631647c71ecec9e9cb8";

// The files and layout read with `label`: the fine label (byte 1, 100 classes, names in
// fine_label_names.txt) or the coarse one (byte 0, 20 superclasses, coarse_label_names.txt);
// each with the official names as fallback.
const CifarFiles& cifar100_files(CifarLabel label);

// "fine" or "coarse", as the config writes it.
const char* cifar_label_name(CifarLabel label);

// Reads both splits from `root` with the label chosen.
DatasetSplits load_cifar100(const std::filesystem::path& root, CifarLabel label);

}  // namespace runner
