// Reading IDX files (MNIST, Fashion-MNIST), gzipped or not, with exact size checks.
#include "runner/data/idx.h"

#include <fmt/format.h>
#include <zlib.h>

#include "runner/data/error_location.h"
#include "runner/util/errors.h"
#include "runner/util/files.h"

namespace runner {
namespace {

std::uint32_t read_big_endian(const std::string& bytes, std::size_t offset) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(bytes.data()) + offset;
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

// Checks the magic number (first, as a wrong file is likelier than a cut one), then that the
// whole header is there.
void check_idx_header(const std::filesystem::path& file, const std::string& bytes,
                      std::uint32_t magic, std::size_t header_bytes, const char* what) {
  const char* unzipped = file.extension() == ".gz" ? " (after gunzip)" : "";
  auto check_size = [&](std::size_t needed) {
    if (bytes.size() >= needed) return;
    throw_user_error(at_file(file),
                     fmt::format("truncated: found {} bytes{}, expected at least the {}-byte "
                                 "header of an IDX {} file",
                                 bytes.size(), unzipped, header_bytes, what));
  };
  check_size(4);
  if (std::uint32_t found = read_big_endian(bytes, 0); found != magic) {
    throw_user_error(
        at_file(file),
        fmt::format("found magic number 0x{:08x}, expected 0x{:08x} (IDX {})", found, magic, what),
        "is this the right file, and not an HTML error page?");
  }
  check_size(header_bytes);
}

void check_payload_size(const std::filesystem::path& file, std::size_t found, std::size_t expected,
                        const std::string& header) {
  if (found == expected) return;
  const char* unzipped = file.extension() == ".gz" ? " (after gunzip)" : "";
  throw_user_error(
      at_file(file),
      fmt::format("{}: found {} bytes{}, expected {} bytes as its header says ({})",
                  found < expected ? "truncated" : "too long", found, unzipped, expected, header));
}

std::string idx_download_hint(const std::filesystem::path& root, const std::string& name) {
  const char* source = name == "fashion_mnist" ? "https://github.com/zalandoresearch/fashion-mnist"
                                               : "https://ossci-datasets.s3.amazonaws.com/mnist/";
  return fmt::format(
      "put the four IDX files (train-images-idx3-ubyte, train-labels-idx1-ubyte, "
      "t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte, plain or .gz) into {} by hand; they are "
      "published at {}",
      root.string(), source);
}

Dataset read_idx_split(const std::filesystem::path& root, const std::string& prefix,
                       const std::string& dataset_name) {
  const std::string hint = idx_download_hint(root, dataset_name);
  auto images_file = find_idx_file(root / (prefix + "-images-idx3-ubyte"), hint);
  auto labels_file = find_idx_file(root / (prefix + "-labels-idx1-ubyte"), hint);
  Dataset split;
  split.name = dataset_name;
  split.source = images_file.string();
  split.class_names = idx_class_names(dataset_name);
  IdxImages images = read_idx_images(images_file);
  split.labels = read_idx_labels(labels_file, split.classes());
  if (static_cast<std::size_t>(images.count) != split.labels.size()) {
    throw_user_error(at_file(labels_file),
                     fmt::format("found {} labels, expected {} (one per image in {})",
                                 split.labels.size(), images.count, images_file.string()));
  }
  split.channels = 1;
  split.height = images.rows;
  split.width = images.cols;
  split.images = std::move(images.pixels);
  return split;
}

}  // namespace

std::filesystem::path find_idx_file(const std::filesystem::path& base, const std::string& hint) {
  std::error_code ignored;
  if (std::filesystem::is_regular_file(base, ignored)) return base;
  std::filesystem::path gz = base;
  gz += ".gz";
  if (std::filesystem::is_regular_file(gz, ignored)) return gz;
  throw_user_error(at_file(base),
                   fmt::format("IDX file not found (nor {})", gz.filename().string()), hint);
}

std::string read_maybe_gzipped(const std::filesystem::path& file) {
  if (file.extension() != ".gz") return read_file(file);
  gzFile in = gzopen(file.c_str(), "rb");
  if (!in) throw_user_error(at_file(file), "cannot open for reading");
  gzbuffer(in, 1 << 20);
  std::string bytes;
  std::vector<char> chunk(1 << 20);
  int n = 0;
  while ((n = gzread(in, chunk.data(), static_cast<unsigned>(chunk.size()))) > 0) {
    bytes.append(chunk.data(), static_cast<std::size_t>(n));
  }
  int status = Z_OK;
  std::string message = gzerror(in, &status);
  gzclose_r(in);
  if (n < 0 || (status != Z_OK && status != Z_STREAM_END)) {
    throw_user_error(at_file(file),
                     fmt::format("corrupt gzip stream after {} bytes: {}", bytes.size(), message),
                     "download the file again");
  }
  return bytes;
}

IdxImages read_idx_images(const std::filesystem::path& file) {
  const std::string bytes = read_maybe_gzipped(file);
  constexpr std::size_t header_bytes = 16;
  check_idx_header(file, bytes, kIdxImagesMagic, header_bytes, "images");
  const std::size_t count = read_big_endian(bytes, 4);
  const std::size_t rows = read_big_endian(bytes, 8);
  const std::size_t cols = read_big_endian(bytes, 12);
  if (rows == 0 || cols == 0 || rows > 4096 || cols > 4096) {  // also keeps the product in range
    throw_user_error(at_file(file),
                     fmt::format("found images of {}x{}, expected 1x1 to 4096x4096", rows, cols));
  }
  check_payload_size(file, bytes.size(), header_bytes + count * rows * cols,
                     fmt::format("{} images of {}x{}", count, rows, cols));
  // The size check bounds every dimension by the file size, so these casts cannot overflow.
  IdxImages images;
  images.count = static_cast<int>(count);
  images.rows = static_cast<int>(rows);
  images.cols = static_cast<int>(cols);
  images.pixels.assign(bytes.begin() + header_bytes, bytes.end());
  return images;
}

std::vector<std::int32_t> read_idx_labels(const std::filesystem::path& file, int classes) {
  const std::string bytes = read_maybe_gzipped(file);
  constexpr std::size_t header_bytes = 8;
  check_idx_header(file, bytes, kIdxLabelsMagic, header_bytes, "labels");
  const std::size_t count = read_big_endian(bytes, 4);
  check_payload_size(file, bytes.size(), header_bytes + count, fmt::format("{} labels", count));
  std::vector<std::int32_t> labels(count);
  for (std::size_t i = 0; i < count; ++i) {
    const auto label = static_cast<std::uint8_t>(bytes[header_bytes + i]);
    if (label >= classes) {
      throw_user_error(at_file(file),
                       fmt::format("label {}: found {}, expected 0..{}", i, label, classes - 1));
    }
    labels[i] = label;
  }
  return labels;
}

std::vector<std::string> idx_class_names(const std::string& dataset_name) {
  if (dataset_name == "fashion_mnist") {
    return {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
            "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};
  }
  return {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
}

DatasetSplits load_idx(const std::filesystem::path& root, const std::string& dataset_name) {
  std::error_code ignored;
  if (!std::filesystem::is_directory(root, ignored)) {
    throw_user_error(at_file(root), fmt::format("{} folder not found", dataset_name),
                     idx_download_hint(root, dataset_name));
  }
  DatasetSplits splits{read_idx_split(root, "train", dataset_name),
                       read_idx_split(root, "t10k", dataset_name)};
  if (splits.train.height != splits.test.height || splits.train.width != splits.test.width) {
    throw_user_error(at_file(root),
                     fmt::format("train images are {}x{} but test images {}x{}, expected the "
                                 "same size",
                                 splits.train.height, splits.train.width, splits.test.height,
                                 splits.test.width));
  }
  return splits;
}

}  // namespace runner
