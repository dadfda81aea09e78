// Data files are read only when they are regular files: a FIFO or a device (/dev/zero) named as a
// dataset file would block or never end.
#pragma once

#include <filesystem>
#include <string>

namespace runner {

// False when nothing is at `file`; true for a regular file (or a link to one); a UserError naming
// the file and `what` was expected for anything else (a folder, a FIFO, a socket, a device).
bool regular_data_file_exists(const std::filesystem::path& file, const std::string& what);

}  // namespace runner
