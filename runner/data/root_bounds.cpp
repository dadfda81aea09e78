// Resolving listed paths against the dataset's folders: a lexical check says why a path leads
// out, the resolved one (symlinks followed) whether it does.
#include "runner/data/root_bounds.h"

#include <sys/stat.h>

#include <algorithm>

namespace runner {
namespace {

namespace fs = std::filesystem;

fs::path absolute_normal(const fs::path& path) {
  std::error_code error;
  const fs::path absolute = fs::absolute(path, error);
  return (error ? path : absolute).lexically_normal();
}

fs::path resolved(const fs::path& path) {
  std::error_code error;
  const fs::path canonical = fs::weakly_canonical(path, error);
  return error ? path : canonical;
}

bool inside(const fs::path& folder, const fs::path& path) {
  auto [folder_end, path_at] =
      std::mismatch(folder.begin(), folder.end(), path.begin(), path.end());
  return folder_end == folder.end() && path_at != path.end();
}

bool inside_any(const std::vector<fs::path>& folders, const fs::path& path) {
  return std::any_of(folders.begin(), folders.end(),
                     [&](const fs::path& folder) { return inside(folder, path); });
}

}  // namespace

RootBounds::RootBounds(const std::vector<fs::path>& folders) {
  for (const fs::path& folder : folders) {
    lexical_.push_back(absolute_normal(folder));
    resolved_.push_back(resolved(lexical_.back()));
  }
}

std::string RootBounds::escape(const fs::path& base, const fs::path& path) {
  const fs::path file = absolute_normal(base / path);  // base / an absolute path is that path
  auto [parent, added] = resolved_parents_.try_emplace(file.parent_path());
  if (added) parent->second = resolved(file.parent_path());
  fs::path real = parent->second / file.filename();
  struct stat info {};
  if (::lstat(real.c_str(), &info) == 0 && S_ISLNK(info.st_mode)) real = resolved(real);
  if (inside_any(resolved_, real)) return "";
  if (inside_any(lexical_, file)) return "a symlink leads out";
  return path.is_absolute() ? "an absolute path" : "'..' leads out";
}

}  // namespace runner
