// Folders the runner writes into: created with a clear error, claimed atomically, made inside a
// given folder never through a link, and a check that a path stays inside one (symlinks and '..'
// resolved).
#pragma once

#include <filesystem>
#include <string>

namespace runner {

// Creates `dir` and its parents. A file in the way, a name too long or no permission is a
// UserError naming the path and the reason; `what` says what the folder is ("the run's folder").
void create_folders(const std::filesystem::path& dir, const std::string& what);

// Creates `dir` itself (its parent must exist); false when it existed already. Of several
// processes racing for one name, exactly one gets true.
bool create_new_folder(const std::filesystem::path& dir, const std::string& what);

// A folder the runner makes inside one it was given: `base` may be anywhere (a link the user
// chose for results is fine), but the parts of `inside` are the runner's, and a link planted at
// one would send what is written or removed there to the link's target.
struct FolderInside {
  std::filesystem::path base, inside;  // `inside` relative, without ".."
  std::filesystem::path path() const { return base / inside; }
};

// Creates `folder.path()`, its parts below the base one by one; a symbolic link at one of them
// is a UserError naming it (nothing is made in its target), as is a file.
void create_folders_inside(const FolderInside& folder, const std::string& what);

// The first part of `folder.inside` that is a symbolic link, "" when none is (parts that do not
// exist are none).
std::filesystem::path first_link_inside(const FolderInside& folder);

// True when `path` (which need not exist yet) is inside `folder` once both are made absolute
// and every symlink and '..' that exists on disk is resolved.
bool is_inside_folder(const std::filesystem::path& folder, const std::filesystem::path& path);

// The runner's folder for caches: $XDG_CACHE_HOME/runner, else ~/.cache/runner; empty when
// neither variable is set.
std::filesystem::path runner_cache_folder();

}  // namespace runner
