// Reading the CIFAR-10 binary files, with errors that name the file, the expectation and the
// finding.
#include "runner/data/cifar10.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sstream>

#include "runner/data/error_location.h"
#include "runner/data/regular_file.h"
#include "runner/util/errors.h"
#include "runner/util/files.h"

namespace runner {
namespace {

const std::vector<std::string>& standard_class_names() {
  static const std::vector<std::string> names = {
      "airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"};
  return names;
}

// The official batches are 30 MB; a file 10 times larger is not one of them.
constexpr std::size_t kMaxCifar10FileBytes = std::size_t{300} << 20;

Dataset empty_split(const std::vector<std::string>& class_names) {
  Dataset split;
  split.name = "cifar10";
  split.channels = 3;
  split.height = 32;
  split.width = 32;
  split.class_names = class_names;
  return split;
}

}  // namespace

std::string cifar10_by_hand_hint(const std::filesystem::path& root, bool offer_download) {
  if (offer_download) {
    return fmt::format(
        "put the files by hand: download {}, unpack it and move the files of its "
        "cifar-10-batches-bin folder into {}; or set dataset.download: true",
        kCifar10Url, root.string());
  }
  // download is already set: the way out is the files themselves, fetched elsewhere.
  return fmt::format(
      "offline, put the files by hand: on a machine with internet download {}, copy it here, "
      "unpack it with tar xzf cifar-10-binary.tar.gz and move the files of its "
      "cifar-10-batches-bin folder into {}; the next run finds them and downloads nothing",
      kCifar10Url, root.string());
}

const std::vector<std::string>& cifar10_train_files() {
  static const std::vector<std::string> files = {"data_batch_1.bin", "data_batch_2.bin",
                                                 "data_batch_3.bin", "data_batch_4.bin",
                                                 "data_batch_5.bin"};
  return files;
}

std::vector<std::string> missing_cifar10_files(const std::filesystem::path& root) {
  std::vector<std::string> missing;
  std::vector<std::string> wanted = cifar10_train_files();
  wanted.push_back(kCifar10TestFile);
  for (const auto& name : wanted) {
    if (!regular_data_file_exists(root / name, "a CIFAR-10 binary batch")) missing.push_back(name);
  }
  return missing;
}

std::vector<std::string> read_cifar10_class_names(const std::filesystem::path& root) {
  std::filesystem::path file = root / "batches.meta.txt";
  std::error_code ignored;
  if (!std::filesystem::exists(file, ignored)) return standard_class_names();
  std::istringstream in(read_regular_file(file, 1 << 20, "a list of class names, one per line"));
  std::vector<std::string> names;
  std::string line;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
      line.pop_back();
    if (!line.empty()) names.push_back(line);
  }
  if (names.empty()) {
    throw_user_error(at_file(file), "found no class names, expected one name per line",
                     "delete the file to use the standard ten CIFAR-10 names");
  }
  return names;
}

void append_cifar10_file(const std::filesystem::path& file, Dataset& out) {
  const std::string bytes =
      read_regular_file(file, kMaxCifar10FileBytes, "a CIFAR-10 binary batch");
  if (bytes.size() % kCifar10RecordBytes != 0) {
    throw_user_error(
        at_file(file),
        fmt::format("found {} bytes, expected a whole number of {}-byte records (1 label byte + "
                    "3x32x32 pixels); the last record is cut after {} bytes",
                    bytes.size(), kCifar10RecordBytes, bytes.size() % kCifar10RecordBytes),
        "is this the binary version of CIFAR-10, not the Python or Matlab one?");
  }
  const std::size_t records = bytes.size() / kCifar10RecordBytes;
  const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
  const std::size_t first = out.labels.size();
  out.labels.resize(first + records);
  out.images.resize((first + records) * kCifar10ImageBytes);
  for (std::size_t r = 0; r < records; ++r) {
    const std::uint8_t* record = data + r * kCifar10RecordBytes;
    if (record[0] >= out.classes()) {
      throw_user_error(at_file(file),
                       fmt::format("record {}: found label {}, expected 0..{} ({} classes)", r,
                                   record[0], out.classes() - 1, out.classes()));
    }
    out.labels[first + r] = record[0];
    std::copy(record + 1, record + kCifar10RecordBytes,
              out.images.begin() + static_cast<std::ptrdiff_t>((first + r) * kCifar10ImageBytes));
  }
}

DatasetSplits load_cifar10(const std::filesystem::path& root) {
  std::error_code ignored;
  if (!std::filesystem::is_directory(root, ignored)) {
    throw_user_error(at_file(root),
                     "CIFAR-10 folder not found, expected a folder holding data_batch_1.bin .. "
                     "data_batch_5.bin and test_batch.bin",
                     cifar10_by_hand_hint(root));
  }
  if (auto missing = missing_cifar10_files(root); !missing.empty()) {
    throw_user_error(at_file(root / missing.front()),
                     fmt::format("CIFAR-10 file not found ({} of 6 missing: {})", missing.size(),
                                 fmt::join(missing, ", ")),
                     cifar10_by_hand_hint(root));
  }
  const auto class_names = read_cifar10_class_names(root);
  DatasetSplits splits{empty_split(class_names), empty_split(class_names), {}};
  splits.train.source = root.string();
  splits.test.source = (root / kCifar10TestFile).string();
  std::uintmax_t train_bytes = 0;
  for (const auto& name : cifar10_train_files())
    train_bytes += std::filesystem::file_size(root / name);
  splits.train.images.reserve(train_bytes / kCifar10RecordBytes * kCifar10ImageBytes);
  splits.train.labels.reserve(train_bytes / kCifar10RecordBytes);
  for (const auto& name : cifar10_train_files()) {
    append_cifar10_file(root / name, splits.train);
    splits.files.push_back(root / name);
  }
  append_cifar10_file(root / kCifar10TestFile, splits.test);
  splits.files.push_back(root / kCifar10TestFile);
  if (std::filesystem::exists(root / "batches.meta.txt", ignored)) {
    splits.files.push_back(root / "batches.meta.txt");
  }
  return splits;
}

}  // namespace runner
