// Walking image folders: names sorted in byte order, hidden entries skipped, each real folder
// (device, inode) entered once however many links lead to it, the depth and the entries bounded,
// pseudo file systems (/proc, /sys) refused, Ctrl-C acted on within an entry.
#include "runner/data/image_files.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <utility>

#include "runner/util/errors.h"
#include "runner/util/interrupt.h"

namespace runner {
namespace {

namespace fs = std::filesystem;

bool is_hidden(const fs::path& name) {
  return name.filename().string().starts_with('.');
}

using FolderId = std::pair<dev_t, ino_t>;

// What one walk visits: every real folder once (links that fan out to one folder, two to the
// next, 20 levels deep, once took minutes: each level doubled the work), and how much.
struct Walk {
  std::set<FolderId> visited;
  std::size_t entries = 0;
};

// File systems whose "folders" are the kernel's (a class folder linked to /proc or /sys never
// ended and grew in memory): by statfs's f_type.
const char* pseudo_file_system(const fs::path& folder) {
  struct statfs info {};
  if (::statfs(folder.c_str(), &info) != 0) return nullptr;
  switch (static_cast<unsigned long>(info.f_type)) {
    case 0x9fa0:  // PROC_SUPER_MAGIC
      return "proc";
    case 0x62656572:  // SYSFS_MAGIC
      return "sysfs";
    case 0x1cd1:  // DEVPTS_SUPER_MAGIC
      return "devpts";
    case 0x64626720:  // DEBUGFS_MAGIC
      return "debugfs";
    case 0x74726163:  // TRACEFS_MAGIC
      return "tracefs";
    case 0x27e0eb:    // CGROUP_SUPER_MAGIC
    case 0x63677270:  // CGROUP2_SUPER_MAGIC
      return "cgroup";
    case 0x73636673:  // SECURITYFS_MAGIC
      return "securityfs";
    case 0xcafe4a11:  // BPF_FS_MAGIC
      return "bpf";
    default:
      return nullptr;
  }
}

void check_not_pseudo(const fs::path& folder) {
  if (const char* kind = pseudo_file_system(folder)) {
    throw UserError(fmt::format(
        "{}: a folder of the {} pseudo file system (the kernel's, not files): expected a folder "
        "of images",
        folder.string(), kind));
  }
}

// A folder's files, by relative path of the folder.
struct FolderFiles {
  std::string folder;  // relative to the walked folder, '/'-separated; "" for itself
  std::vector<std::string> names;
};

[[noreturn]] void throw_unreadable(const fs::path& folder, const std::error_code& error) {
  throw UserError(fmt::format("{}: cannot read the folder: {}", folder.string(), error.message()));
}

void check_folder(const fs::path& folder) {
  std::error_code error;
  const fs::file_status status = fs::status(folder, error);
  if (status.type() == fs::file_type::not_found) {
    throw UserError(fmt::format("{}: no such folder", folder.string()));
  }
  if (error) throw_unreadable(folder, error);
  if (status.type() != fs::file_type::directory) {
    throw UserError(fmt::format("{}: not a folder", folder.string()));
  }
}

// Walks `folder` (relative path `relative`, `depth` folders below the first), adding what it
// holds to `out`.
void walk(const fs::path& folder, const std::string& relative, int depth, Walk& state,
          std::vector<FolderFiles>& out) {
  if (depth > kMaxFolderDepth) {
    throw UserError(
        fmt::format("{}: folders nested deeper than {} levels: expected the images "
                    "within {} folders of the root",
                    folder.string(), kMaxFolderDepth, kMaxFolderDepth));
  }
  check_not_pseudo(folder);
  FolderFiles here{relative, {}};
  std::vector<std::string> subfolders;
  std::error_code error;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    throw_if_interrupted("listing the image files");
    if (++state.entries > kMaxFolderEntries) {
      throw UserError(fmt::format(
          "{}: more than {} entries below the image folder: expected a folder of images (a "
          "link to a large tree?)",
          folder.string(), kMaxFolderEntries));
    }
    const std::string name = it->path().filename().string();
    if (name.starts_with('.')) continue;
    std::error_code ignored;  // a broken symlink is not a folder: a file that will fail to read
    if (it->is_directory(ignored)) {
      subfolders.push_back(name);
    } else if (has_image_extension(name)) {
      here.names.push_back(name);
    }
  }
  if (error) throw_unreadable(folder, error);
  std::sort(here.names.begin(), here.names.end());
  // In byte order, so that of two links to one folder the first by name lists it, on any disk.
  std::sort(subfolders.begin(), subfolders.end());
  out.push_back(std::move(here));
  for (const std::string& name : subfolders) {
    struct stat info {};
    if (::stat((folder / name).c_str(), &info) != 0) continue;  // gone meanwhile
    // Entered once: a cycle, or a second link to a folder already walked, adds nothing.
    if (!state.visited.insert({info.st_dev, info.st_ino}).second) continue;
    walk(folder / name, relative.empty() ? name : relative + "/" + name, depth + 1, state, out);
  }
}

}  // namespace

bool has_image_extension(const fs::path& file) {
  static constexpr std::array<std::string_view, 5> extensions = {".png", ".jpg", ".jpeg", ".bmp",
                                                                 ".webp"};
  std::string extension = file.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return std::find(extensions.begin(), extensions.end(), extension) != extensions.end();
}

std::vector<std::string> list_class_folders(const fs::path& split_folder) {
  check_folder(split_folder);
  check_not_pseudo(split_folder);
  std::vector<std::string> names;
  std::error_code error;
  for (fs::directory_iterator it(split_folder, error), end; !error && it != end;
       it.increment(error)) {
    std::error_code ignored;
    if (!is_hidden(it->path()) && it->is_directory(ignored)) {
      names.push_back(it->path().filename().string());
    }
  }
  if (error) throw_unreadable(split_folder, error);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<fs::path> list_image_files(const fs::path& folder) {
  check_folder(folder);
  struct stat info {};
  if (::stat(folder.c_str(), &info) != 0)
    throw_unreadable(folder, {errno, std::generic_category()});
  Walk state;
  state.visited.insert({info.st_dev, info.st_ino});
  std::vector<FolderFiles> folders;
  walk(folder, "", 0, state, folders);
  std::sort(folders.begin(), folders.end(),
            [](const FolderFiles& a, const FolderFiles& b) { return a.folder < b.folder; });
  std::vector<fs::path> files;
  for (const FolderFiles& f : folders) {
    for (const std::string& name : f.names) files.push_back(fs::path(f.folder) / name);
  }
  return files;
}

}  // namespace runner
