// What CIFAR-10 and CIFAR-100 share: binary records of label bytes then a 3x32x32 CHW image
// (CIFAR-10 has one label byte, CIFAR-100 two: coarse, then fine), a names file with the
// official list as fallback, and the reading of both splits with errors naming the file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "runner/data/dataset.h"
#include "runner/data/dataset_size.h"

namespace runner {

inline constexpr int kCifarImageBytes = 3 * 32 * 32;

// One CIFAR binary dataset as laid out in its official archive, with the label to read.
struct CifarFiles {
  std::string name;                // the format's name, for Dataset::name ("cifar10")
  std::string title;               // for messages ("CIFAR-10")
  int label_bytes = 1;             // label bytes before each image
  int label_byte = 0;              // which of them is the label
  std::string label_kind;          // how messages name it ("label", "fine label")
  std::vector<std::string> train;  // the training files, in reading order
  std::string test;                // the test file
  std::int64_t official_train = 0, official_test = 0;  // records, for plans without the files
  std::size_t max_file_bytes = 0;                      // a larger file is not one of the dataset's
  std::string names_file;                              // class names, one per line (optional)
  std::vector<std::string> official_names;             // when names_file is absent
  std::string url;                                     // the official archive
  std::string archive_folder;                          // the archive's folder holding the files
  std::size_t max_archive_bytes = 0;  // a download past this is not the archive: it is stopped

  int record_bytes() const { return label_bytes + kCifarImageBytes; }
};

// The class names a CIFAR dataset is read with, and where they come from, for messages.
struct CifarClassNames {
  std::vector<std::string> names;
  std::filesystem::path file;  // the names file, read or absent
  bool from_file = false;      // false: the official list, the file being absent
  std::string title;           // the dataset's, for messages ("CIFAR-10")
  // "ROOT/batches.meta.txt lists 3 class names", or that it is absent and the official list
  // of N names is used.
  std::string origin() const;
};

// The hint of every "missing" error: the official URL, the folder to unpack into, and (when
// `offer_download`, for a config without it) "or set dataset.download: true".
std::string cifar_by_hand_hint(const CifarFiles& files, const std::filesystem::path& root,
                               bool offer_download = true);

// Names of the record files absent from `root` (the names file is optional, so never listed);
// one that is there but not a regular file (a FIFO, a device) is a UserError naming it.
std::vector<std::string> missing_cifar_files(const CifarFiles& files,
                                             const std::filesystem::path& root);
// What `runner validate` reads: the names file (class_names' checks), and that each present
// data file is a whole number of records; returns the files that are missing.
std::vector<std::string> check_cifar_files(const CifarFiles& files,
                                           const std::filesystem::path& root);

// Class names from root/names_file (one per line, empty lines skipped), or the official list
// when that file is absent; a file without names is a UserError.
CifarClassNames read_cifar_class_names(const CifarFiles& files, const std::filesystem::path& root);

// The records the files under `root` hold, from their sizes; a missing or unreadable file
// counts as the official one.
DatasetRecords planned_cifar_records(const CifarFiles& files, const std::filesystem::path& root);

// Appends the records of one file to `out` (whose class_names are `names.names`). Any whole
// number of records is accepted; a partial record, or a label >= the names' count, is a
// UserError naming the file, the record and the names' origin.
void append_cifar_file(const std::filesystem::path& file, const CifarFiles& files,
                       const CifarClassNames& names, Dataset& out);

// Reads both splits from `root`; a missing folder or file is a UserError saying where to get
// and put the files.
DatasetSplits load_cifar(const CifarFiles& files, const std::filesystem::path& root);

}  // namespace runner
