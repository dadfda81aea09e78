// Test helpers that write dataset files in their real formats: CIFAR-10 records, IDX (plain or
// gzipped) and tar.gz archives.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace runner::testing {

// `count` CIFAR-10 records (label byte + 3072 pixel bytes), labels in [0, classes), pixels
// random, all from `seed`.
std::string cifar10_records(int count, std::uint64_t seed, int classes = 10);

// Label byte of record `index` in bytes made by cifar10_records.
inline std::uint8_t& cifar10_label(std::string& records, int index) {
  return reinterpret_cast<std::uint8_t&>(records[static_cast<std::size_t>(index) * 3073]);
}

// The six record files with the given counts (data_batch_1..5, then test_batch), returned in
// that order as bytes; no batches.meta.txt.
std::vector<std::string> write_cifar10_folder(const std::filesystem::path& root,
                                              const std::vector<int>& counts, std::uint64_t seed);

// IDX files: a big-endian header, then the bytes.
std::string idx_images(int count, int rows, int cols, const std::string& pixels);
std::string idx_labels(const std::string& labels);

// Writes `bytes` gzip-compressed (zlib).
void write_gzip(const std::filesystem::path& file, const std::string& bytes);

// Writes a tar.gz holding `files` (archive path, contents); folders are added for each parent.
void write_tar_gz(const std::filesystem::path& file,
                  const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace runner::testing
