// Walking image folders: names sorted in byte order, hidden entries skipped, symlink cycles cut
// by remembering the (device, inode) of the folders being walked.
#include "runner/data/image_files.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

#include "runner/util/errors.h"

namespace runner {
namespace {

namespace fs = std::filesystem;

bool is_hidden(const fs::path& name) {
  return name.filename().string().starts_with('.');
}

using FolderId = std::pair<dev_t, ino_t>;

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

// Walks `folder` (relative path `relative`), adding what it holds to `out`; `ancestors` are the
// folders being walked above it, with itself last.
void walk(const fs::path& folder, const std::string& relative, std::vector<FolderId>& ancestors,
          std::vector<FolderFiles>& out) {
  FolderFiles here{relative, {}};
  std::vector<std::string> subfolders;
  std::error_code error;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
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
  out.push_back(std::move(here));
  for (const std::string& name : subfolders) {
    struct stat info {};
    if (::stat((folder / name).c_str(), &info) != 0) continue;  // gone meanwhile
    const FolderId id{info.st_dev, info.st_ino};
    if (std::find(ancestors.begin(), ancestors.end(), id) != ancestors.end()) continue;
    ancestors.push_back(id);
    walk(folder / name, relative.empty() ? name : relative + "/" + name, ancestors, out);
    ancestors.pop_back();
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
  std::vector<FolderId> ancestors = {{info.st_dev, info.st_ino}};
  std::vector<FolderFiles> folders;
  walk(folder, "", ancestors, folders);
  std::sort(folders.begin(), folders.end(),
            [](const FolderFiles& a, const FolderFiles& b) { return a.folder < b.folder; });
  std::vector<fs::path> files;
  for (const FolderFiles& f : folders) {
    for (const std::string& name : f.names) files.push_back(fs::path(f.folder) / name);
  }
  return files;
}

}  // namespace runner
