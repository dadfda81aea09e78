// What MNIST and Fashion-MNIST share as dataset formats: a 1x28x28 image and record counts read
// from the IDX headers (the first 16 bytes, gunzipped when .gz: never the whole file).
#include <algorithm>

#include "runner/data/dataset_format.h"
#include "runner/data/idx.h"

namespace runner {
namespace {

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

}  // namespace

DatasetFormat idx_format_base() {
  DatasetFormat format;
  format.image = [](const DatasetSpec&) { return ImageShape{1, 28, 28}; };
  // Missing or unreadable files count as the official dataset's: loading names the problem.
  format.planned_records = [](const DatasetSpec& spec) {
    const std::filesystem::path root = spec.root;
    const IdxDeclared train = idx_declared_images(root / "train-images-idx3-ubyte", {60'000, 784});
    const IdxDeclared test = idx_declared_images(root / "t10k-images-idx3-ubyte", {10'000, 784});
    return DatasetRecords{train.count, test.count, std::max(train.image_bytes, test.image_bytes)};
  };
  format.check_files = [](const DatasetSpec& spec) {
    return check_idx_headers(spec.root, IdxImageSize{28, 28});
  };
  format.training_labels = [](const DatasetSpec& spec) {  // the label file: one byte per image
    const auto classes = static_cast<int>(format_of(spec).class_names(spec).size());
    return read_idx_labels(
        find_idx_file(std::filesystem::path(spec.root) / "train-labels-idx1-ubyte"), classes);
  };
  return format;
}

}  // namespace runner
