// CIFAR-10 in its official binary format: 3073-byte records (label, then 3x32x32 CHW pixels)
// in data_batch_1..5.bin (train) and test_batch.bin (test), class names in batches.meta.txt.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "runner/data/dataset.h"

namespace runner {

inline constexpr int kCifar10ImageBytes = 3 * 32 * 32;
inline constexpr int kCifar10RecordBytes = 1 + kCifar10ImageBytes;
inline constexpr const char* kCifar10Url =
    "https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz";
inline constexpr const char* kCifar10Md5 = "c32a1d4ab5d03f1284b67883e8d87530";

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
// ten (airplane..truck) when that file is absent.
std::vector<std::string> read_cifar10_class_names(const std::filesystem::path& root);

// Appends the records of one file to `out` (whose class_names must be set). Any whole number of
// records is accepted; a partial record or a label >= out.classes() is a UserError.
void append_cifar10_file(const std::filesystem::path& file, Dataset& out);

// Reads both splits from `root`; a missing file is a UserError saying where to put the files.
DatasetSplits load_cifar10(const std::filesystem::path& root);

}  // namespace runner
