// MNIST and Fashion-MNIST in the IDX format (plain or gzipped): a big-endian header with a magic
// number and sizes, then unsigned bytes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "runner/data/dataset.h"

namespace runner {

inline constexpr std::uint32_t kIdxImagesMagic = 0x00000803;  // unsigned bytes, 3 dimensions
inline constexpr std::uint32_t kIdxLabelsMagic = 0x00000801;  // unsigned bytes, 1 dimension

struct IdxImages {
  int count = 0, rows = 0, cols = 0;
  std::vector<std::uint8_t> pixels;  // (count, rows, cols)
};

// The file to read for `base` (e.g. root/train-images-idx3-ubyte): the plain file when present,
// else base + ".gz"; a UserError naming both (and adding `hint`) when neither exists.
std::filesystem::path find_idx_file(const std::filesystem::path& base,
                                    const std::string& hint = "");

// Bytes of a file, gunzipped (zlib) when its name ends in ".gz", read as far as asked.
class ByteReader {
 public:
  explicit ByteReader(const std::filesystem::path& file);  // a UserError when it cannot be opened
  ~ByteReader();
  ByteReader(const ByteReader&) = delete;
  ByteReader& operator=(const ByteReader&) = delete;
  // Appends up to `n` more bytes to `out`; returns how many (fewer at the end of the file). A
  // corrupt gzip stream is a UserError naming the file.
  std::size_t read(std::size_t n, std::string& out);
  // The size of a plain file, known before reading; 0 for a gzipped one (known only by reading).
  std::uintmax_t plain_bytes() const { return plain_bytes_; }

 private:
  std::filesystem::path file_;
  bool gzipped_ = false;
  void* gz_ = nullptr;  // gzFile
  std::ifstream plain_;
  std::uintmax_t plain_bytes_ = 0;
};

// Parse one IDX file, checking the magic number and that the size matches the header exactly;
// never reads (or gunzips) more than one byte past what the header declares.
// `expected`: the rows x cols the model takes (from the config's dataset), checked in the header so
// that images of another size are refused before they are read; {0, 0} takes any size.
struct IdxImageSize {
  int rows = 0, cols = 0;
};
IdxImages read_idx_images(const std::filesystem::path& file, IdxImageSize expected = {});
// What `runner validate` reads of the four files of an IDX dataset in `root`: their headers,
// checked as loading checks them (magic numbers, the image size, labels per image); returns the
// files that are absent (neither plain nor .gz).
std::vector<std::string> check_idx_headers(const std::filesystem::path& root,
                                           IdxImageSize expected);
std::vector<std::int32_t> read_idx_labels(const std::filesystem::path& file, int classes);

// One dataset published as IDX files (MNIST, Fashion-MNIST): its format's name, class names and
// where the files are published (for the "missing" hint).
struct IdxDataset {
  std::string name;
  std::vector<std::string> class_names;
  std::string source;
};

// Reads train-* and t10k-* from `root`.
DatasetSplits load_idx(const std::filesystem::path& root, const IdxDataset& dataset,
                       IdxImageSize expected = {});

// The parts of an IDX dataset's format entry that do not depend on which dataset it is: the
// 1x28x28 image and the record counts from the files' headers.
struct DatasetFormat;
DatasetFormat idx_format_base();

}  // namespace runner
