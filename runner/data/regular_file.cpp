// The regular-file check of data files.
#include "runner/data/regular_file.h"

#include <fmt/format.h>

#include "runner/data/error_location.h"
#include "runner/util/errors.h"

namespace runner {

bool regular_data_file_exists(const std::filesystem::path& file, const std::string& what) {
  std::error_code ignored;
  const auto status = std::filesystem::status(file, ignored);
  if (!std::filesystem::exists(status)) return false;
  if (std::filesystem::is_regular_file(status)) return true;
  const char* kind = std::filesystem::is_directory(status) ? "a folder"
                                                           : "not a regular file (a FIFO, a "
                                                             "socket or a device)";
  throw_user_error(at_file(file), fmt::format("is {}, expected {}", kind, what));
}

}  // namespace runner
