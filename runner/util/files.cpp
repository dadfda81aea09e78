// Atomic file writes and whole-file reads.
#include "runner/util/files.h"

#include <fmt/format.h>
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
  const char* kind = std::filesystem::is_directory(status)  ? "a folder"
                     : std::filesystem::is_fifo(status)     ? "a FIFO"
                     : std::filesystem::is_socket(status)   ? "a socket"
                     : std::filesystem::is_block_file(status) || std::filesystem::is_character_file(status)
                         ? "a device"
                         : "not a regular file";
  throw UserError(fmt::format("{}: {} is {}, expected the path of a file to write (the runner "
                              "replaces only regular files)",
                              what, path.string(), kind));
}

void write_file_atomically(const std::filesystem::path& path, std::string_view bytes) {
  check_replaceable_file(path, path.string());
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  std::filesystem::path temporary = path;
  temporary += fmt::format(".tmp.{}", ::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out)
      throw UserError(
          fmt::format("{}: cannot write: {}", temporary.string(), std::strerror(errno)));
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      std::filesystem::remove(temporary);
      throw UserError(fmt::format("{}: write failed (disk full?)", temporary.string()));
    }
  }
  std::filesystem::rename(temporary, path);
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

std::string read_regular_file(const std::filesystem::path& path, std::size_t max_bytes,
                              const std::string& what) {
  std::error_code error;
  auto status = std::filesystem::status(path, error);
  if (!std::filesystem::exists(status)) {
    throw UserError(fmt::format("{}: not found, expected {}", path.string(), what));
  }
  if (std::filesystem::is_directory(status)) {
    throw UserError(fmt::format("{}: is a folder, expected {}", path.string(), what));
  }
  if (!std::filesystem::is_regular_file(status)) {
    throw UserError(
        fmt::format("{}: is not a regular file (a FIFO, a socket or a device), "
                    "expected {}",
                    path.string(), what));
  }
  auto size = std::filesystem::file_size(path, error);
  if (!error && size > max_bytes) {
    throw UserError(fmt::format("{}: is {} bytes, expected {} of at most {} bytes", path.string(),
                                size, what, max_bytes));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
  std::string bytes;
  bytes.reserve(error ? 0 : static_cast<std::size_t>(size));
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    bytes.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (bytes.size() > max_bytes) {  // it grew since, or its size was unknown
      throw UserError(fmt::format("{}: is more than {} bytes, expected {} of at most that size",
                                  path.string(), max_bytes, what));
    }
  }
  return bytes;
}

}  // namespace runner
