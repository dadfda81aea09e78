// Cache files: lstat() before opening (a device is never opened), then open() with O_NONBLOCK |
// O_NOFOLLOW and fstat() again, so that a file swapped in meanwhile is still only read if regular.
#include "runner/util/cache_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "runner/util/files.h"

namespace runner {
namespace {

namespace fs = std::filesystem;

// What a file of this mode is, for a cache that must be a regular file.
const char* cache_kind_of(mode_t mode) {
  if (S_ISLNK(mode)) return "a symlink";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "not a regular file";
}

}  // namespace

CacheFile::CacheFile(const fs::path& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) {
    absent_ = errno == ENOENT || errno == ENOTDIR;
    if (!absent_) problem_ = fmt::format("cannot be read: {}", std::strerror(errno));
    return;
  }
  if (!S_ISREG(info.st_mode)) {
    problem_ = cache_kind_of(info.st_mode);
    return;
  }
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd_ < 0) {
    problem_ =
        errno == ELOOP ? "a symlink" : fmt::format("cannot be read: {}", std::strerror(errno));
    return;
  }
  if (::fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode)) {  // replaced since the lstat()
    problem_ = cache_kind_of(info.st_mode);
    ::close(fd_);
    fd_ = -1;
    return;
  }
  size_ = static_cast<std::uintmax_t>(info.st_size);
}

CacheFile::~CacheFile() {
  if (fd_ >= 0) ::close(fd_);
}

bool CacheFile::read(void* data, std::size_t size) {
  auto* out = static_cast<char*>(data);
  while (size > 0 && fd_ >= 0) {
    const ssize_t n = ::read(fd_, out, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    out += n;
    size -= static_cast<std::size_t>(n);
  }
  return size == 0;
}

std::optional<std::string> read_cache_text(const fs::path& path, std::size_t max_bytes,
                                           std::string& problem) {
  CacheFile file(path);
  problem = file.problem();
  if (!file.is_open()) return std::nullopt;
  if (file.size() > max_bytes) {
    problem = fmt::format("{} bytes, larger than a cache of at most {}", file.size(), max_bytes);
    return std::nullopt;
  }
  std::string text(static_cast<std::size_t>(file.size()), '\0');
  if (!file.read(text.data(), text.size())) {
    problem = "shorter than its size (changed while being read)";
    return std::nullopt;
  }
  return text;
}

bool write_pieces_atomically(const fs::path& file, std::initializer_list<std::string_view> pieces) {
  static std::atomic<unsigned> counter{0};
  std::error_code error;
  fs::create_directories(file.parent_path(), error);
  fs::path temporary = file;
  temporary += fmt::format(".tmp.{}.{}", ::getpid(), counter++);
  bool written = false;
  if (const int fd = create_new_file(temporary); fd >= 0) {
    written = true;
    for (std::string_view piece : pieces) written = written && write_all(fd, piece);
    written = ::close(fd) == 0 && written;
  }
  std::error_code rename_error;
  if (written) fs::rename(temporary, file, rename_error);
  const bool renamed = written && !rename_error;
  if (!renamed) fs::remove(temporary, error);
  return renamed;
}

std::string cache_warning(const fs::path& file, const std::string& problem, bool replaced) {
  return replaced ? fmt::format("warning: {} was not a cache ({}): rebuilt and replaced",
                                file.string(), problem)
                  : fmt::format(
                        "warning: {} is not a cache ({}) and could not be replaced: the "
                        "cache is not used",
                        file.string(), problem);
}

}  // namespace runner
