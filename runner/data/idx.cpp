// Reading IDX files (MNIST, Fashion-MNIST), gzipped or not, with exact size checks.
#include "runner/data/idx.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <limits>
#include <optional>

#include "runner/data/error_location.h"
#include "runner/data/regular_file.h"
#include "runner/util/errors.h"
#include "runner/util/files.h"
#include "runner/util/process_stats.h"

namespace runner {
namespace {

std::uint32_t read_big_endian(const std::string& bytes, std::size_t offset) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(bytes.data()) + offset;
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

// What a file's first four bytes are, described, never echoed: a data file may be a link to
// any file (a secret's first bytes would be printed).
std::string describe_magic(std::uint32_t found, const std::string& bytes) {
  if (found == kIdxImagesMagic) return "the magic number of IDX images (0x00000803)";
  if (found == kIdxLabelsMagic) return "the magic number of IDX labels (0x00000801)";
  if (found >> 16 == 0x1f8b) return "gzip's signature (a gzipped file's name ends in .gz)";
  const bool text = std::all_of(bytes.begin(), bytes.begin() + 4, [](char c) {
    return (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\r' || c == '\t';
  });
  return text ? "text" : "no IDX magic number";
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
    throw_user_error(at_file(file),
                     fmt::format("found {}, expected the magic number 0x{:08x} (IDX {})",
                                 describe_magic(found, bytes), magic, what),
                     "is this the right file, and not an HTML error page?");
  }
  check_size(header_bytes);
}

// `found` is at most one byte more than `expected`: reading stops there.
void check_payload_size(const std::filesystem::path& file, std::size_t found, std::size_t expected,
                        const std::string& header) {
  if (found == expected) return;
  const char* unzipped = file.extension() == ".gz" ? " (after gunzip)" : "";
  if (found < expected) {
    throw_user_error(at_file(file), fmt::format("truncated: found {} bytes{}, expected {} bytes as "
                                                "its header says ({})",
                                                found, unzipped, expected, header));
  }
  throw_user_error(at_file(file), fmt::format("too long: more than the {} bytes{} its header "
                                              "declares ({})",
                                              expected, unzipped, header));
}

std::string idx_download_hint(const std::filesystem::path& root, const IdxDataset& dataset) {
  return fmt::format(
      "put the four IDX files (train-images-idx3-ubyte, train-labels-idx1-ubyte, "
      "t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte, plain or .gz) into {} by hand; they are "
      "published at {}",
      root.string(), dataset.source);
}

Dataset read_idx_split(const std::filesystem::path& root, const std::string& prefix,
                       const IdxDataset& dataset, IdxImageSize expected) {
  const std::string hint = idx_download_hint(root, dataset);
  auto images_file = find_idx_file(root / (prefix + "-images-idx3-ubyte"), hint);
  auto labels_file = find_idx_file(root / (prefix + "-labels-idx1-ubyte"), hint);
  Dataset split;
  split.name = dataset.name;
  split.source = images_file.string();
  split.setting = "dataset.root";
  split.class_names = dataset.class_names;
  IdxImages images = read_idx_images(images_file, expected);
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
  if (regular_data_file_exists(base, "an IDX file")) return base;
  std::filesystem::path gz = base;
  gz += ".gz";
  if (regular_data_file_exists(gz, "a gzipped IDX file")) return gz;
  throw_user_error(at_file(base),
                   fmt::format("IDX file not found (nor {})", gz.filename().string()), hint);
}

ByteReader::ByteReader(const std::filesystem::path& file) : file_(file) {
  gzipped_ = file.extension() == ".gz";
  if (gzipped_) {
    gz_ = gzopen(file.c_str(), "rb");
    if (!gz_) throw_user_error(at_file(file), "cannot open for reading");
    gzbuffer(static_cast<gzFile>(gz_), 1 << 20);
  } else {
    plain_.open(file, std::ios::binary);
    if (!plain_) throw_user_error(at_file(file), "cannot open for reading");
    std::error_code ignored;
    plain_bytes_ = std::filesystem::file_size(file, ignored);
    if (ignored) plain_bytes_ = 0;
  }
}

ByteReader::~ByteReader() {
  if (gz_) gzclose_r(static_cast<gzFile>(gz_));
}

std::size_t ByteReader::read(std::size_t n, std::string& out) {
  const std::size_t before = out.size();
  std::vector<char> chunk(std::min<std::size_t>(n, 1 << 20));
  while (out.size() - before < n) {
    const std::size_t want = std::min(chunk.size(), n - (out.size() - before));
    std::size_t got = 0;
    if (gzipped_) {
      int r = gzread(static_cast<gzFile>(gz_), chunk.data(), static_cast<unsigned>(want));
      if (r < 0) {
        int status = Z_OK;
        std::string message = gzerror(static_cast<gzFile>(gz_), &status);
        throw_user_error(at_file(file_),
                         fmt::format("corrupt gzip stream after {} bytes: {}", out.size(), message),
                         "download the file again");
      }
      got = static_cast<std::size_t>(r);
    } else {
      plain_.read(chunk.data(), static_cast<std::streamsize>(want));
      got = static_cast<std::size_t>(plain_.gcount());
    }
    if (got == 0) {
      if (gzipped_) {  // the end of the file: was it the end of the stream too?
        int status = Z_OK;
        std::string message = gzerror(static_cast<gzFile>(gz_), &status);
        if (status != Z_OK && status != Z_STREAM_END) {
          throw_user_error(
              at_file(file_),
              fmt::format("corrupt gzip stream after {} bytes: {}", out.size(), message),
              "download the file again");
        }
      }
      break;
    }
    out.append(chunk.data(), got);
  }
  return out.size() - before;
}

namespace {

// Counts are held as int (a split's size), so a header may declare at most INT_MAX records.
void check_record_count(const std::filesystem::path& file, std::uint64_t count, const char* what) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::int32_t>::max();
  if (count <= kMax) return;
  throw_user_error(at_file(file), fmt::format("its header declares {} {}, expected at most {}",
                                              count, what, kMax));
}

// Reads the header, checks it, then exactly the payload it declares and one byte more (to tell
// a longer file): a file, or a gzip bomb, is never read beyond what its header promises, and
// a header promising more than the machine's memory is refused before anything is allocated.
template <typename PayloadBytes>
std::string read_declared(const std::filesystem::path& file, std::uint32_t magic,
                          std::size_t header_bytes, const char* what, PayloadBytes payload_bytes) {
  ByteReader reader(file);
  std::string bytes;
  reader.read(header_bytes, bytes);
  check_idx_header(file, bytes, magic, header_bytes, what);
  auto [payload, described] = payload_bytes(bytes);
  const auto memory =
      static_cast<std::uint64_t>(std::max<std::int64_t>(physical_memory_bytes(), 0));
  if (memory > 0 && payload > memory) {
    throw_user_error(at_file(file), fmt::format("its header declares {} ({} bytes), more than this "
                                                "machine's {} bytes of memory",
                                                described, payload, memory));
  }
  if (reader.plain_bytes() > 0 && reader.plain_bytes() < header_bytes + payload) {
    // A plain file shorter than its header says: refused before allocating what it declares.
    check_payload_size(file, reader.plain_bytes(), header_bytes + payload, described);
  }
  bytes.reserve(header_bytes + payload + 1);
  reader.read(payload + 1, bytes);
  check_payload_size(file, bytes.size(), header_bytes + payload, described);
  return bytes;
}

// An images file's header (16 bytes): the count, and a size the model takes. Returns the pixel
// bytes it declares and how to say so.
std::pair<std::uint64_t, std::string> check_images_header(const std::filesystem::path& file,
                                                          const std::string& header,
                                                          IdxImageSize expected) {
  const std::uint64_t count = read_big_endian(header, 4);
  const std::uint64_t rows = read_big_endian(header, 8);
  const std::uint64_t cols = read_big_endian(header, 12);
  check_record_count(file, count, "images");
  if (rows == 0 || cols == 0 || rows > 4096 || cols > 4096) {  // keeps products in range
    throw_user_error(at_file(file),
                     fmt::format("found images of {}x{}, expected 1x1 to 4096x4096", rows, cols));
  }
  if (expected.rows > 0 &&
      (rows != std::uint64_t(expected.rows) || cols != std::uint64_t(expected.cols))) {
    throw_user_error(at_file(file),
                     fmt::format("the images are 1x{}x{} (channels x height x width), but the "
                                 "model's input is 1x{}x{}, as the config's dataset implies",
                                 rows, cols, expected.rows, expected.cols));
  }
  return {count * rows * cols, fmt::format("{} images of {}x{}", count, rows, cols)};
}

// A labels file's header (8 bytes): the count.
std::pair<std::uint64_t, std::string> check_labels_header(const std::filesystem::path& file,
                                                          const std::string& header) {
  const std::uint64_t count = read_big_endian(header, 4);
  check_record_count(file, count, "labels");
  return {count, fmt::format("{} labels", count)};
}

// The first `bytes` of `file` (gunzipped), checked as loading checks them (size, magic).
std::string read_header(const std::filesystem::path& file, std::uint32_t magic, std::size_t bytes,
                        const char* what) {
  ByteReader reader(file);
  std::string header;
  reader.read(bytes, header);
  check_idx_header(file, header, magic, bytes, what);
  return header;
}

}  // namespace

std::vector<std::string> check_idx_headers(const std::filesystem::path& root,
                                           IdxImageSize expected) {
  std::vector<std::string> missing;
  auto present = [&](const std::filesystem::path& base) {
    std::filesystem::path gz = base;
    gz += ".gz";
    const bool here = regular_data_file_exists(base, "an IDX file") ||
                      regular_data_file_exists(gz, "a gzipped IDX file");
    if (!here) missing.push_back(base.filename().string());
    return here;
  };
  for (const std::string prefix : {"train", "t10k"}) {
    const auto images = root / (prefix + "-images-idx3-ubyte");
    const auto labels = root / (prefix + "-labels-idx1-ubyte");
    std::optional<std::uint64_t> image_count;
    if (present(images)) {
      const auto file = find_idx_file(images);
      const std::string header = read_header(file, kIdxImagesMagic, 16, "images");
      check_images_header(file, header, expected);
      image_count = read_big_endian(header, 4);
    }
    if (present(labels)) {
      const auto file = find_idx_file(labels);
      const std::uint64_t count =
          check_labels_header(file, read_header(file, kIdxLabelsMagic, 8, "labels")).first;
      if (image_count && count != *image_count) {
        throw_user_error(at_file(file),
                         fmt::format("found {} labels, expected {} (one per image in {})", count,
                                     *image_count, find_idx_file(images).string()));
      }
    }
  }
  return missing;
}

IdxImages read_idx_images(const std::filesystem::path& file, IdxImageSize expected) {
  constexpr std::size_t header_bytes = 16;
  const std::string bytes = read_declared(
      file, kIdxImagesMagic, header_bytes, "images",
      [&](const std::string& header) { return check_images_header(file, header, expected); });
  IdxImages images;
  images.count = static_cast<int>(read_big_endian(bytes, 4));
  images.rows = static_cast<int>(read_big_endian(bytes, 8));
  images.cols = static_cast<int>(read_big_endian(bytes, 12));
  images.pixels.assign(bytes.begin() + header_bytes, bytes.end());
  return images;
}

std::vector<std::int32_t> read_idx_labels(const std::filesystem::path& file, int classes) {
  constexpr std::size_t header_bytes = 8;
  const std::string bytes =
      read_declared(file, kIdxLabelsMagic, header_bytes, "labels",
                    [&](const std::string& header) { return check_labels_header(file, header); });
  const std::size_t count = bytes.size() - header_bytes;
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

DatasetSplits load_idx(const std::filesystem::path& root, const IdxDataset& dataset,
                       IdxImageSize expected) {
  std::error_code ignored;
  if (!std::filesystem::is_directory(root, ignored)) {
    throw_user_error(at_file(root), fmt::format("{} folder not found", dataset.name),
                     idx_download_hint(root, dataset));
  }
  DatasetSplits splits{read_idx_split(root, "train", dataset, expected),
                       read_idx_split(root, "t10k", dataset, expected),
                       {}};
  for (const char* prefix : {"train", "t10k"}) {
    for (const char* kind : {"-images-idx3-ubyte", "-labels-idx1-ubyte"}) {
      splits.files.push_back(find_idx_file(root / (std::string(prefix) + kind)));
    }
  }
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
