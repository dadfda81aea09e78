// Record counts from the spec and the files' headers, without loading the data.
#include "runner/data/dataset_size.h"

#include <algorithm>
#include <limits>
#include <string>

#include "runner/data/cifar10.h"
#include "runner/data/idx.h"

namespace runner {
namespace {

std::int64_t limited(std::int64_t count, std::int64_t limit) {
  return limit > 0 ? std::min(count, limit) : count;
}

struct IdxDeclared {
  std::int64_t count = 0, image_bytes = 0;
};

// What an IDX images file's header declares, or `fallback` when it cannot be read. Loading reads
// all the images the header declares before their shape is compared with the model's, so the
// header's rows x cols count, not 28 x 28.
IdxDeclared idx_declared_images(const std::filesystem::path& base, IdxDeclared fallback) {
  try {
    ByteReader reader(find_idx_file(base));
    std::string header;
    if (reader.read(16, header) < 16) return fallback;
    const auto* p = reinterpret_cast<const std::uint8_t*>(header.data());
    auto word = [p](int at) {
      return (std::int64_t{p[at]} << 24) | (std::int64_t{p[at + 1]} << 16) |
             (std::int64_t{p[at + 2]} << 8) | std::int64_t{p[at + 3]};
    };
    if (word(0) != kIdxImagesMagic) return fallback;
    return {word(4), word(8) * word(12)};
  } catch (const std::exception&) {
    return fallback;
  }
}

// The whole records of a CIFAR-10 file, or `fallback` when it is not a readable regular file.
std::int64_t cifar10_file_records(const std::filesystem::path& file, std::int64_t fallback) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(file, error)) return fallback;
  const auto bytes = std::filesystem::file_size(file, error);
  return error ? fallback : static_cast<std::int64_t>(bytes / kCifar10RecordBytes);
}

}  // namespace

std::int64_t DatasetRecords::bytes() const {
  std::int64_t records = 0, out = 0;
  if (__builtin_add_overflow(train, test, &records) ||
      __builtin_mul_overflow(records, image_bytes + std::int64_t{sizeof(std::int32_t)}, &out)) {
    return std::numeric_limits<std::int64_t>::max();
  }
  return out;
}

DatasetRecords planned_dataset_records(const DatasetSpec& spec) {
  DatasetRecords records;
  const std::filesystem::path root = spec.root;
  if (spec.name == "synthetic") {
    const SyntheticSpec& s = spec.synthetic;
    records = {s.train_count, s.test_count, std::int64_t{s.channels} * s.height * s.width};
  } else if (spec.name == "cifar10") {
    records.image_bytes = kCifar10ImageBytes;
    const std::int64_t per_file = 10'000;
    for (const auto& name : cifar10_train_files()) {
      records.train += cifar10_file_records(root / name, per_file);
    }
    records.test = cifar10_file_records(root / kCifar10TestFile, per_file);
  } else if (spec.name == "mnist" || spec.name == "fashion_mnist") {
    const IdxDeclared train = idx_declared_images(root / "train-images-idx3-ubyte", {60'000, 784});
    const IdxDeclared test = idx_declared_images(root / "t10k-images-idx3-ubyte", {10'000, 784});
    records = {train.count, test.count, std::max(train.image_bytes, test.image_bytes)};
  }
  records.train = limited(records.train, spec.train_limit);
  records.test = limited(records.test, spec.test_limit);
  return records;
}

}  // namespace runner
