// The runner's cache files (decoded images, file hashes, data fingerprints): read only when they
// are regular files, opened without blocking or following a link, and replaced through a
// temporary file and rename(). A cache is an optimisation: what lies at its path and is not one
// (a FIFO, a link, a forged file) is treated as absent, rebuilt and replaced, with a warning.
#pragma once

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace runner {

// A cache file open for reading.
class CacheFile {
 public:
  // Opens `path` when it is a regular file, with O_NONBLOCK (a FIFO would wait for a writer for
  // ever) and O_NOFOLLOW (a link could point anywhere). Otherwise absent() when nothing is
  // there, or problem() says what is ("a FIFO", "a symlink", ...).
  explicit CacheFile(const std::filesystem::path& path);
  ~CacheFile();
  CacheFile(const CacheFile&) = delete;
  CacheFile& operator=(const CacheFile&) = delete;

  bool is_open() const { return fd_ >= 0; }
  bool absent() const { return absent_; }
  const std::string& problem() const { return problem_; }
  std::uintmax_t size() const { return size_; }  // in bytes, when open

  // Reads exactly `size` more bytes into `data`; false when the file ends first or fails.
  bool read(void* data, std::size_t size);

 private:
  int fd_ = -1;
  bool absent_ = false;
  std::uintmax_t size_ = 0;
  std::string problem_;
};

// A whole cache file of at most `max_bytes`: nullopt when absent, or when something else is
// there, which `problem` then says ("a FIFO", "larger than ...").
std::optional<std::string> read_cache_text(const std::filesystem::path& path, std::size_t max_bytes,
                                           std::string& problem);

// Writes the concatenated `pieces` to `file` through a temporary file of a name unique to this
// process and call, created exclusively and never through a link, then rename(), which replaces
// a link, a FIFO or a file at `file` itself (never what a link points to). Creates the folder.
// False, leaving nothing behind, on failure (a folder in the way, a read-only home).
bool write_pieces_atomically(const std::filesystem::path& file,
                             std::initializer_list<std::string_view> pieces);

// The warning for a cache file that was not one: its path, `problem`, and whether the rebuilt
// cache replaced it.
std::string cache_warning(const std::filesystem::path& file, const std::string& problem,
                          bool replaced);

}  // namespace runner
