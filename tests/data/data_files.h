// Test helpers that write dataset files in their real formats: CIFAR-10 and CIFAR-100 records,
// IDX (plain or gzipped) and tar.gz archives.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "runner/data/dataset_spec.h"

namespace runner::testing {

// An image_folder spec of the train/ and test/ folders under `root`, images of (channels,
// height, width), its decoded cache in root/.cache (hidden: never listed as a class).
DatasetSpec image_folder_spec(const std::filesystem::path& root, ImageShape image);

// `count` CIFAR records: one label byte per entry of `classes` (label byte i in [0, classes[i]))
// then 3072 pixel bytes, labels and pixels random, all from `seed`.
std::string cifar_records(int count, std::uint64_t seed, const std::vector<int>& classes);

// `count` CIFAR-10 records (label byte + 3072 pixel bytes), labels in [0, classes).
inline std::string cifar10_records(int count, std::uint64_t seed, int classes = 10) {
  return cifar_records(count, seed, {classes});
}

// `count` CIFAR-100 records (coarse label byte, fine label byte, 3072 pixel bytes).
inline std::string cifar100_records(int count, std::uint64_t seed, int fine = 100,
                                    int coarse = 20) {
  return cifar_records(count, seed, {coarse, fine});
}

// Label byte of record `index` in bytes made by cifar10_records.
inline std::uint8_t& cifar10_label(std::string& records, int index) {
  return reinterpret_cast<std::uint8_t&>(records[static_cast<std::size_t>(index) * 3073]);
}

// Coarse and fine label bytes of record `index` in bytes made by cifar100_records.
inline std::uint8_t& cifar100_coarse_label(std::string& records, int index) {
  return reinterpret_cast<std::uint8_t&>(records[static_cast<std::size_t>(index) * 3074]);
}
inline std::uint8_t& cifar100_fine_label(std::string& records, int index) {
  return reinterpret_cast<std::uint8_t&>(records[static_cast<std::size_t>(index) * 3074 + 1]);
}

// The six record files with the given counts (data_batch_1..5, then test_batch), returned in
// that order as bytes; no batches.meta.txt.
std::vector<std::string> write_cifar10_folder(const std::filesystem::path& root,
                                              const std::vector<int>& counts, std::uint64_t seed);

// CIFAR-100's train.bin and test.bin with the given counts, returned in that order as bytes;
// no names files.
std::vector<std::string> write_cifar100_folder(const std::filesystem::path& root, int train,
                                               int test, std::uint64_t seed);

// IDX files: a big-endian header, then the bytes.
std::string idx_images(int count, int rows, int cols, const std::string& pixels);
std::string idx_labels(const std::string& labels);

// Writes `bytes` gzip-compressed (zlib).
void write_gzip(const std::filesystem::path& file, const std::string& bytes);

// Writes a tar.gz holding `files` (archive path, contents); folders are added for each parent.
void write_tar_gz(const std::filesystem::path& file,
                  const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace runner::testing
