// Writers of CIFAR-10, CIFAR-100, IDX and tar.gz files for the data tests.
#include "data_files.h"

#include <archive.h>
#include <archive_entry.h>
#include <zlib.h>

#include <fstream>
#include <set>
#include <stdexcept>

#include "runner/util/random.h"

namespace runner::testing {

std::string cifar_records(int count, std::uint64_t seed, const std::vector<int>& classes) {
  Random random(seed);
  const std::size_t record = classes.size() + 3072;
  std::string bytes(static_cast<std::size_t>(count) * record, '\0');
  for (std::size_t r = 0; r < static_cast<std::size_t>(count); ++r) {
    for (std::size_t l = 0; l < classes.size(); ++l) {
      bytes[r * record + l] = static_cast<char>(random.below(classes[l]));
    }
    for (std::size_t p = classes.size(); p < record; ++p) {
      bytes[r * record + p] = static_cast<char>(random.below(256));
    }
  }
  return bytes;
}

std::vector<std::string> write_cifar10_folder(const std::filesystem::path& root,
                                              const std::vector<int>& counts, std::uint64_t seed) {
  const std::vector<std::string> names = {"data_batch_1.bin", "data_batch_2.bin",
                                          "data_batch_3.bin", "data_batch_4.bin",
                                          "data_batch_5.bin", "test_batch.bin"};
  std::filesystem::create_directories(root);
  std::vector<std::string> files;
  for (std::size_t i = 0; i < names.size(); ++i) {
    files.push_back(cifar10_records(counts.at(i), derive_seed(seed, i)));
    std::ofstream(root / names[i], std::ios::binary) << files.back();
  }
  return files;
}

std::vector<std::string> write_cifar100_folder(const std::filesystem::path& root, int train,
                                               int test, std::uint64_t seed) {
  std::filesystem::create_directories(root);
  std::vector<std::string> files = {cifar100_records(train, derive_seed(seed, 0)),
                                    cifar100_records(test, derive_seed(seed, 1))};
  std::ofstream(root / "train.bin", std::ios::binary) << files[0];
  std::ofstream(root / "test.bin", std::ios::binary) << files[1];
  return files;
}

namespace {
void append_big_endian(std::string& out, std::uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((value >> shift) & 0xff);
}
}  // namespace

std::string idx_images(int count, int rows, int cols, const std::string& pixels) {
  std::string out;
  append_big_endian(out, 0x00000803);
  append_big_endian(out, count);
  append_big_endian(out, rows);
  append_big_endian(out, cols);
  return out + pixels;
}

std::string idx_labels(const std::string& labels) {
  std::string out;
  append_big_endian(out, 0x00000801);
  append_big_endian(out, static_cast<std::uint32_t>(labels.size()));
  return out + labels;
}

void write_gzip(const std::filesystem::path& file, const std::string& bytes) {
  gzFile out = gzopen(file.c_str(), "wb");
  if (!out) throw std::runtime_error("gzopen failed: " + file.string());
  gzwrite(out, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(out);
}

void write_tar_gz(const std::filesystem::path& file,
                  const std::vector<std::pair<std::string, std::string>>& files) {
  archive* out = archive_write_new();
  archive_write_add_filter_gzip(out);
  archive_write_set_format_pax_restricted(out);
  if (archive_write_open_filename(out, file.c_str()) != ARCHIVE_OK) {
    throw std::runtime_error(archive_error_string(out));
  }
  archive_entry* entry = archive_entry_new();
  std::set<std::string> folders;
  for (const auto& [name, contents] : files) {
    for (auto parent = std::filesystem::path(name).parent_path(); !parent.empty();
         parent = parent.parent_path()) {
      if (!folders.insert(parent.string()).second) continue;
      archive_entry_clear(entry);
      archive_entry_set_pathname(entry, (parent.string() + "/").c_str());
      archive_entry_set_filetype(entry, AE_IFDIR);
      archive_entry_set_perm(entry, 0755);
      archive_write_header(out, entry);
    }
    archive_entry_clear(entry);
    archive_entry_set_pathname(entry, name.c_str());
    archive_entry_set_filetype(entry, AE_IFREG);
    archive_entry_set_perm(entry, 0644);
    archive_entry_set_size(entry, static_cast<la_int64_t>(contents.size()));
    archive_write_header(out, entry);
    archive_write_data(out, contents.data(), contents.size());
  }
  archive_entry_free(entry);
  archive_write_close(out);
  archive_write_free(out);
}

DatasetSpec image_folder_spec(const std::filesystem::path& root, ImageShape image) {
  DatasetSpec spec;
  spec.name = "image_folder";
  spec.root = root.string();
  spec.files.image = image;
  spec.files.train = "train";
  spec.files.test = "test";
  spec.files.cache = (root / ".cache").string();
  return spec;
}

}  // namespace runner::testing
