// cifar10: the CIFAR-10 binary files (data_batch_1..5.bin, test_batch.bin), downloaded into
// dataset.root on request; any class count: the names in batches.meta.txt, else the standard ten.
#include "runner/data/cifar10.h"

#include <fmt/format.h>

#include "runner/data/dataset_format.h"
#include "runner/data/download.h"

namespace runner {
namespace {

// The whole records of a CIFAR-10 file, or `fallback` when it is not a readable regular file.
std::int64_t file_records(const std::filesystem::path& file, std::int64_t fallback) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(file, error)) return fallback;
  const auto bytes = std::filesystem::file_size(file, error);
  return error ? fallback : static_cast<std::int64_t>(bytes / kCifar10RecordBytes);
}

}  // namespace

RUNNER_DATASET_FORMAT(cifar10) {
  DatasetFormat format;
  format.default_root = "data/cifar-10-batches-bin";
  format.keys = {"url"};
  format.read = [](const SettingsReader& settings, DatasetSpec& spec) {
    spec.url = settings.text("url", "");
  };
  format.write = [](const DatasetSpec& spec, nlohmann::json& out) {
    if (!spec.url.empty()) out["url"] = spec.url;
  };
  format.image = [](const DatasetSpec&) { return ImageShape{3, 32, 32}; };
  format.class_names = [](const DatasetSpec& spec) { return read_cifar10_class_names(spec.root); };
  format.planned_records = [](const DatasetSpec& spec) {
    const std::filesystem::path root = spec.root;
    const std::int64_t per_file = 10'000;  // a missing file counts as the official one
    DatasetRecords records{0, file_records(root / kCifar10TestFile, per_file), kCifar10ImageBytes};
    for (const auto& name : cifar10_train_files())
      records.train += file_records(root / name, per_file);
    return records;
  };
  format.download = download_cifar10;
  format.load = [](const DatasetSpec& spec) { return load_cifar10(spec.root); };
  return format;
}

}  // namespace runner
