// Whether the files a list names (a CSV's rows) stay inside the folders a dataset allows: an
// absolute path, ".." or a symlink in a list from elsewhere could name any file the user may read.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace runner {

class RootBounds {
 public:
  // The allowed folders, each resolved once (symlinks and ".." of the folders themselves are
  // theirs to have).
  explicit RootBounds(const std::vector<std::filesystem::path>& folders);

  // "" when `base / path` lies inside one of the folders once every symlink on disk is
  // resolved; else why it does not: "an absolute path", "'..' leads out", "a symlink leads out".
  std::string escape(const std::filesystem::path& base, const std::filesystem::path& path);

 private:
  std::vector<std::filesystem::path> lexical_, resolved_;  // the folders as given, and resolved
  // Resolved parent folders: a list names thousands of files in a few folders.
  std::map<std::filesystem::path, std::filesystem::path> resolved_parents_;
};

}  // namespace runner
