// File helpers: atomic writes (temporary file, then rename) and whole-file reads.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace runner {

// Writes all of `bytes` to the open file `fd` (again after a signal or a short write); false on
// an error, with errno set.
bool write_all(int fd, std::string_view bytes);

// Writes `bytes` to `path` through `path.tmp.<pid>` and rename(), so a reader never sees a
// half-written file and an existing file survives a failed write. Creates parent folders.
void write_file_atomically(const std::filesystem::path& path, std::string_view bytes);

// Opens `path` as a new file for writing (a file descriptor, or -1 with errno set), never
// through a symlink: a temporary's predictable name in a shared folder could be planted as a
// link to another file. A stale file of that name (a crashed process's) is removed first.
int create_new_file(const std::filesystem::path& path);

// Throws a UserError when `path` exists and is not a regular file (or a symlink to one): a
// folder, a FIFO, a socket or a device, which writing a file there would replace (as root,
// /dev/null). `what` names the field or file for the message ("checkpoint.path").
void check_replaceable_file(const std::filesystem::path& path, const std::string& what);

// Writes `value` as indented JSON, atomically. Text that is not UTF-8 (a path given on the
// command line may hold any bytes) is written with U+FFFD in its place instead of failing.
void write_json_atomically(const std::filesystem::path& path, const nlohmann::json& value);

// A name that is safe as one path component: 1 to 100 letters, digits, '_', '.' and '-', not
// starting with '.' or '-' (so never "..", an option or a hidden file). Names runs and sweeps.
bool is_safe_name(std::string_view name);

// Reads a whole file; throws UserError naming the file when it cannot be read.
std::string read_file(const std::filesystem::path& path);

// Opens an input file the user named for reading, when it is a regular file (or a link to one):
// a file descriptor the caller closes. A missing file, a folder and a FIFO or device (which would
// block or never end) are UserErrors naming the file; `what` says what was expected.
int open_regular_file(const std::filesystem::path& path, const std::string& what);

// Reads a whole input file the user named (a config, a sweep, a report) of at most `max_bytes`.
// A missing file, a folder, a FIFO or device (which would never end) and a larger file are
// UserErrors naming the file; `what` says what was expected ("a YAML config").
std::string read_regular_file(const std::filesystem::path& path, std::size_t max_bytes,
                              const std::string& what);

}  // namespace runner
