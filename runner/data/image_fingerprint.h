// The fingerprint of a labelled file list: one SHA-256 over every file's relative path, label,
// size and content SHA-256, and the count per class. Content hashes are remembered per root
// folder by size and modification time, so a second run hashes only what changed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace runner {

// One file as the fingerprint sees it. `sha256` is empty while unknown; a file that cannot be
// read is fingerprinted as "missing".
struct FileStamp {
  std::string path;  // relative to the root, '/'-separated, as listed
  std::int32_t label = 0;
  bool exists = false;
  std::uintmax_t bytes = 0;
  std::int64_t modified_ns = 0;
  std::string sha256;
};

// `path` (relative) and `label` as given, and the size and time of `root / path`; exists is
// false when stat() fails.
FileStamp stamp_file(const std::filesystem::path& root, const std::filesystem::path& path,
                     std::int32_t label);

// The SHA-256 hex over all stamps in order (each with its sha256 known, or missing) and the
// number of files per label.
std::string fingerprint_stamps(const std::vector<FileStamp>& stamps);

// Content hashes of the files under one root, kept in a text file in the cache folder
// (`hashes-<digest of the root's absolute path>.txt`). Lookups are const, so workers may share
// one; a missing file is an empty cache, and so is one that is not a regular file (a FIFO, a
// link: never opened) or does not parse, which problem() then says and save() replaces;
// failing to save it is not an error.
class FileHashCache {
 public:
  // No cache file when `cache_folder` is empty.
  FileHashCache(const std::filesystem::path& cache_folder, const std::filesystem::path& root);

  // The remembered hash of a file with this path, size and modification time, or "".
  std::string find(const FileStamp& stamp) const;
  // Adds or updates the file's entry (one whose sha256 is known).
  void remember(const FileStamp& stamp);
  // Writes the file when something was remembered since it was read, or what was there was
  // not a cache; true when it was written.
  bool save() const;
  // The cache's file ("" without a cache folder), and why what was there was no cache ("").
  const std::filesystem::path& file() const { return file_; }
  const std::string& problem() const { return problem_; }

 private:
  // Reads the entries of the file's text, or sets problem_.
  void read_entries(std::string_view text);

  struct Entry {
    std::uintmax_t bytes = 0;
    std::int64_t modified_ns = 0;
    std::string sha256;
  };
  std::filesystem::path file_;
  std::string key_;  // the root's absolute path, the file's first line
  std::map<std::string, Entry> entries_;
  bool changed_ = false;
  std::string problem_;
};

}  // namespace runner
