// File helpers: atomic writes (temporary file, then rename) and whole-file reads.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace runner {

// Writes `bytes` to `path` through `path.tmp.<pid>` and rename(), so a reader never sees a
// half-written file and an existing file survives a failed write. Creates parent folders.
void write_file_atomically(const std::filesystem::path& path, std::string_view bytes);

// Reads a whole file; throws UserError naming the file when it cannot be read.
std::string read_file(const std::filesystem::path& path);

}  // namespace runner
