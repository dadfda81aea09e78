// Reading CIFAR binary files of either layout, with errors that name the file, the
// expectation and the finding.
#include "runner/data/cifar_records.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "runner/data/error_location.h"
#include "runner/data/regular_file.h"
#include "runner/util/errors.h"
#include "runner/util/files.h"

namespace runner {
namespace {

Dataset empty_split(const CifarFiles& files, const std::vector<std::string>& class_names) {
  Dataset split;
  split.name = files.name;
  split.channels = 3;
  split.height = 32;
  split.width = 32;
  split.class_names = class_names;
  split.setting = "dataset.root";
  return split;
}

// The whole records of a file, or `fallback` when it is not a readable regular file.
std::int64_t file_records(const CifarFiles& files, const std::filesystem::path& file,
                          std::int64_t fallback) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(file, error)) return fallback;
  const auto bytes = std::filesystem::file_size(file, error);
  return error ? fallback : static_cast<std::int64_t>(bytes / files.record_bytes());
}

std::string archive_name(const CifarFiles& files) {
  return files.url.substr(files.url.rfind('/') + 1);
}

// "data_batch_1.bin, ..., test_batch.bin": every record file.
std::string record_files_list(const CifarFiles& files) {
  return fmt::format("{}, {}", fmt::join(files.train, ", "), files.test);
}

}  // namespace

std::string CifarClassNames::origin() const {
  if (from_file) return fmt::format("{} lists {} class names", file.string(), names.size());
  return fmt::format("{} is absent, so the {} official {} class names are used", file.string(),
                     names.size(), title);
}

std::string cifar_by_hand_hint(const CifarFiles& files, const std::filesystem::path& root,
                               bool offer_download) {
  if (offer_download) {
    return fmt::format(
        "put the files by hand: download {}, unpack it (tar xzf {}) and move the files of its "
        "{} folder into {}; or set dataset.download: true",
        files.url, archive_name(files), files.archive_folder, root.string());
  }
  // download is already set: the way out is the files themselves, fetched elsewhere.
  return fmt::format(
      "offline, put the files by hand: on a machine with internet download {}, copy it here, "
      "unpack it with tar xzf {} and move the files of its {} folder into {}; the next run finds "
      "them and downloads nothing",
      files.url, archive_name(files), files.archive_folder, root.string());
}

std::vector<std::string> missing_cifar_files(const CifarFiles& files,
                                             const std::filesystem::path& root) {
  std::vector<std::string> missing;
  std::vector<std::string> wanted = files.train;
  wanted.push_back(files.test);
  const std::string what = fmt::format("a {} binary file", files.title);
  for (const auto& name : wanted) {
    if (!regular_data_file_exists(root / name, what)) missing.push_back(name);
  }
  return missing;
}

CifarClassNames read_cifar_class_names(const CifarFiles& files, const std::filesystem::path& root) {
  CifarClassNames out;
  out.title = files.title;
  out.file = root / files.names_file;
  std::error_code ignored;
  if (!std::filesystem::exists(out.file, ignored)) {
    out.names = files.official_names;
    return out;
  }
  out.from_file = true;
  std::istringstream in(
      read_regular_file(out.file, 1 << 20, "a list of class names, one per line"));
  std::string line;
  std::map<std::string, int> line_of;  // per-class accuracy is keyed by name: names must differ
  for (int number = 1; std::getline(in, line); ++number) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
      line.pop_back();
    if (line.empty()) continue;
    if (auto [first, fresh] = line_of.emplace(line, number); !fresh) {
      throw_user_error(at_file(out.file),
                       fmt::format("lines {} and {} both name the class '{}', expected a "
                                   "different name on each line",
                                   first->second, number, line),
                       "per-class accuracy is reported by name: rename one of them");
    }
    out.names.push_back(line);
  }
  if (out.names.empty()) {
    throw_user_error(at_file(out.file), "found no class names, expected one name per line",
                     fmt::format("delete the file to use the {} official {} names",
                                 files.official_names.size(), files.title));
  }
  return out;
}

std::vector<std::string> check_cifar_files(const CifarFiles& files,
                                           const std::filesystem::path& root) {
  read_cifar_class_names(files, root);
  std::vector<std::string> missing = missing_cifar_files(files, root);
  std::vector<std::string> all = files.train;
  all.push_back(files.test);
  for (const std::string& name : all) {
    if (std::find(missing.begin(), missing.end(), name) != missing.end()) continue;
    const auto bytes = std::filesystem::file_size(root / name);
    if (bytes % files.record_bytes() != 0 || bytes > files.max_file_bytes) {
      throw_user_error(at_file(root / name),
                       fmt::format("found {} bytes, expected a whole number of {}-byte records "
                                   "(at most {} bytes)",
                                   bytes, files.record_bytes(), files.max_file_bytes),
                       fmt::format("is this the binary version of {}?", files.title));
    }
  }
  return missing;
}

DatasetRecords planned_cifar_records(const CifarFiles& files, const std::filesystem::path& root) {
  DatasetRecords records{0, file_records(files, root / files.test, files.official_test),
                         kCifarImageBytes};
  const std::int64_t per_file =
      files.official_train / static_cast<std::int64_t>(files.train.size());
  for (const auto& name : files.train) records.train += file_records(files, root / name, per_file);
  return records;
}

void append_cifar_file(const std::filesystem::path& file, const CifarFiles& files,
                       const CifarClassNames& names, Dataset& out) {
  const std::string bytes =
      read_regular_file(file, files.max_file_bytes, fmt::format("a {} binary file", files.title));
  const std::size_t record_bytes = files.record_bytes();
  if (bytes.size() % record_bytes != 0) {
    throw_user_error(
        at_file(file),
        fmt::format("found {} bytes, expected a whole number of {}-byte records ({} label "
                    "byte{} + 3x32x32 pixels); the last record is cut after {} bytes",
                    bytes.size(), record_bytes, files.label_bytes,
                    files.label_bytes == 1 ? "" : "s", bytes.size() % record_bytes),
        fmt::format("is this the binary version of {}, not the Python or Matlab one?",
                    files.title));
  }
  const std::size_t records = bytes.size() / record_bytes;
  const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
  const std::size_t first = out.labels.size();
  const std::size_t classes = names.names.size();
  out.labels.resize(first + records);
  out.images.resize((first + records) * kCifarImageBytes);
  for (std::size_t r = 0; r < records; ++r) {
    const std::uint8_t* record = data + r * record_bytes;
    const std::uint8_t label = record[files.label_byte];
    if (label >= classes) {
      throw_user_error(at_file(file),
                       fmt::format("record {}: found {} {}, but {} (labels 0..{})", r,
                                   files.label_kind, label, names.origin(), classes - 1),
                       names.from_file
                           ? fmt::format("list one name per class in {}", names.file.string())
                           : fmt::format("put a {} listing one name per class in {}",
                                         files.names_file, names.file.parent_path().string()));
    }
    out.labels[first + r] = label;
    std::copy(record + files.label_bytes, record + record_bytes,
              out.images.begin() + static_cast<std::ptrdiff_t>((first + r) * kCifarImageBytes));
  }
}

DatasetSplits load_cifar(const CifarFiles& files, const std::filesystem::path& root) {
  std::error_code ignored;
  if (!std::filesystem::is_directory(root, ignored)) {
    throw_user_error(at_file(root),
                     fmt::format("{} folder not found, expected a folder holding {}", files.title,
                                 record_files_list(files)),
                     cifar_by_hand_hint(files, root));
  }
  if (auto missing = missing_cifar_files(files, root); !missing.empty()) {
    throw_user_error(at_file(root / missing.front()),
                     fmt::format("{} file not found ({} of {} missing: {})", files.title,
                                 missing.size(), files.train.size() + 1, fmt::join(missing, ", ")),
                     cifar_by_hand_hint(files, root));
  }
  const CifarClassNames names = read_cifar_class_names(files, root);
  DatasetSplits splits{empty_split(files, names.names), empty_split(files, names.names), {}};
  splits.train.source =
      files.train.size() == 1 ? (root / files.train.front()).string() : root.string();
  splits.test.source = (root / files.test).string();
  const std::int64_t train_records = planned_cifar_records(files, root).train;
  splits.train.images.reserve(static_cast<std::size_t>(train_records) * kCifarImageBytes);
  splits.train.labels.reserve(static_cast<std::size_t>(train_records));
  for (const auto& name : files.train) {
    append_cifar_file(root / name, files, names, splits.train);
    splits.files.push_back(root / name);
  }
  append_cifar_file(root / files.test, files, names, splits.test);
  splits.files.push_back(root / files.test);
  if (names.from_file) splits.files.push_back(names.file);
  return splits;
}

}  // namespace runner
