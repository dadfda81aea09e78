// Short constructors of the SourceLocation that data errors carry: a file or a config field.
#pragma once

#include <filesystem>
#include <string>

#include "runner/util/errors.h"

namespace runner {

inline SourceLocation at_file(const std::filesystem::path& file) {
  SourceLocation where;
  where.file = file.string();
  return where;
}

inline SourceLocation at_field(const std::string& path) {
  SourceLocation where;
  where.path = path;
  return where;
}

}  // namespace runner
