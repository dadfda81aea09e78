// Atomic file writes and whole-file reads.
#include "runner/util/files.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "runner/util/errors.h"

namespace runner {

void check_replaceable_file(const std::filesystem::path& path, const std::string& what) {
  std::error_code error;
  const auto status = std::filesystem::status(path, error);  // a symlink's target
  if (!std::filesystem::exists(status) || std::filesystem::is_regular_file(status)) return;
  const char* kind =
      std::filesystem::is_directory(status) ? "a folder"
      : std::filesystem::is_fifo(status)    ? "a FIFO"
      : std::filesystem::is_socket(status)  ? "a socket"
      : std::filesystem::is_block_file(status) || std::filesystem::is_character_file(status)
          ? "a device"
          : "not a regular file";
  throw UserError(
      fmt::format("{}: {} is {}, expected the path of a file to write (the runner "
                  "replaces only regular files)",
                  what, path.string(), kind));
}

int create_new_file(const std::filesystem::path& path) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST) return fd;
    ::unlink(path.c_str());  // removes a link itself, never its target
  }
  errno = EEXIST;
  return -1;
}

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

void write_file_atomically(const std::filesystem::path& path, std::string_view bytes) {
  check_replaceable_file(path, path.string());
  std::error_code error;
  if (path.has_parent_path()) {
    std::filesystem::create_directories(path.parent_path(), error);
    if (error) {
      throw UserError(
          fmt::format("{}: cannot create its folder: {}", path.string(), error.message()));
    }
  }
  std::filesystem::path temporary = path;
  temporary += fmt::format(".tmp.{}", ::getpid());
  const int fd = create_new_file(temporary);
  if (fd < 0) {
    throw UserError(fmt::format("{}: cannot write (its temporary file {}): {}", path.string(),
                                temporary.string(), std::strerror(errno)));
  }
  const bool written = write_all(fd, bytes);
  const int write_errno = errno;
  if (::close(fd) != 0 || !written) {
    ::unlink(temporary.c_str());
    throw UserError(fmt::format("{}: write failed ({}), the earlier file left as it was",
                                path.string(),
                                written ? "closing it" : std::strerror(write_errno)));
  }
  std::filesystem::rename(temporary, path, error);  // replaces a link at `path`, not its target
  if (error) {
    ::unlink(temporary.c_str());
    throw UserError(fmt::format("{}: cannot replace it: {}", path.string(), error.message()));
  }
}

void write_json_atomically(const std::filesystem::path& path, const nlohmann::json& value) {
  write_file_atomically(path,
                        value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

bool is_safe_name(std::string_view name) {
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  if (name.empty() || name.size() > 100 || !alnum(name[0])) return false;
  for (char c : name) {
    if (!alnum(c) && c != '_' && c != '.' && c != '-') return false;
  }
  return true;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return bytes;
}

int open_regular_file(const std::filesystem::path& path, const std::string& what) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) {
      throw UserError(fmt::format("{}: not found, expected {}", path.string(), what));
    }
    throw UserError(fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
  }
  struct stat info {};
  const bool stated = ::fstat(fd, &info) == 0;
  if (stated && S_ISREG(info.st_mode)) return fd;
  ::close(fd);
  if (stated && S_ISDIR(info.st_mode)) {
    throw UserError(fmt::format("{}: is a folder, expected {}", path.string(), what));
  }
  throw UserError(
      fmt::format("{}: is not a regular file (a FIFO, a socket or a device), expected {}",
                  path.string(), what));
}

namespace {

// Closes a file descriptor on every way out of a read.
struct FileDescriptorGuard {
  int fd;
  ~FileDescriptorGuard() { ::close(fd); }
};

}  // namespace

std::string read_regular_file(const std::filesystem::path& path, std::size_t max_bytes,
                              const std::string& what) {
  const FileDescriptorGuard file{open_regular_file(path, what)};
  struct stat info {};
  const auto size = ::fstat(file.fd, &info) == 0 ? static_cast<std::uintmax_t>(info.st_size) : 0;
  if (size > max_bytes) {
    throw UserError(fmt::format("{}: is {} bytes, expected {} of at most {} bytes", path.string(),
                                size, what, max_bytes));
  }
  std::string bytes;
  bytes.reserve(static_cast<std::size_t>(size));
  char chunk[1 << 16];
  for (ssize_t n; (n = ::read(file.fd, chunk, sizeof chunk)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw UserError(fmt::format("{}: cannot read: {}", path.string(), std::strerror(errno)));
    bytes.append(chunk, static_cast<std::size_t>(n));
    if (bytes.size() > max_bytes) {  // it grew since
      throw UserError(fmt::format("{}: is more than {} bytes, expected {} of at most that size",
                                  path.string(), max_bytes, what));
    }
  }
  return bytes;
}

}  // namespace runner
