// CIFAR-10 in its official binary format: 3073-byte records (label, then 3x32x32 CHW pixels)
// in data_batch_1..5.bin (train) and test_batch.bin (test), class names in batches.meta.txt.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "runner/data/cifar_records.h"
#include "runner/data/dataset.h"

namespace runner {

inline constexpr const char* kCifar10Url =
    "https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz";
inline constexpr const char* kCifar10Md5 = "c32a1d4ab5d03f1284b67883e8d87530";

// The files, the one-label-byte layout and the standard ten names (airplane..truck).
const CifarFiles& cifar10_files();

// The record files, in reading order: five train batches, then the test batch.
const std::vector<std::string>& cifar10_train_files();
inline constexpr const char* kCifar10TestFile = "test_batch.bin";

// The hint of every "missing" error: the official URL, the folder to unpack into, and (when
// `offer_download`, for a config without it) "or set dataset.download: true".
std::string cifar10_by_hand_hint(const std::filesystem::path& root, bool offer_download = true);

// Names of the record files absent from `root` (batches.meta.txt is optional, so never listed);
// one that is there but not a regular file (a FIFO, a device) is a UserError naming it.
std::vector<std::string> missing_cifar10_files(const std::filesystem::path& root);

// Class names from root/batches.meta.txt (one per line, empty lines skipped), or the standard
// ten (airplane..truck) when that file is absent: any class count.
std::vector<std::string> read_cifar10_class_names(const std::filesystem::path& root);

// Reads both splits from `root`; a missing file is a UserError saying where to put the files,
// a label >= the class names' count one naming the record and batches.meta.txt.
DatasetSplits load_cifar10(const std::filesystem::path& root);

}  // namespace runner
