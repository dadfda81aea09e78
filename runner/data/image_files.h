// Finding image files in folders as torchvision's ImageFolder finds them: the class subfolders of
// a split folder, and the image files under a folder in ImageFolder's order.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace runner {

// .png .jpg .jpeg .bmp .webp, in any case (IMG.JPG too).
bool has_image_extension(const std::filesystem::path& file);

// The class subfolders of `split_folder` (symlinks to folders included), sorted by name in byte
// order, as ImageFolder's find_classes; hidden ones (".ipynb_checkpoints") are skipped, where
// ImageFolder would make them classes. Empty when there are none (the caller says what it
// expected). A UserError naming the folder when it is missing, not a folder or unreadable.
std::vector<std::string> list_class_folders(const std::filesystem::path& split_folder);

// The files with an image extension under `folder`, at any depth, as paths relative to it, in
// ImageFolder's order (make_dataset: sorted(os.walk(folder, followlinks=True)), then each
// folder's file names sorted): a folder's own files come before those of its subfolders, folders
// in the byte order of their relative paths. Other files (notes.txt, .DS_Store), hidden files and
// hidden folders are skipped. Symlinks to files and folders are followed, but each real folder is
// entered once (a cycle, or a second link to a folder already walked, adds nothing: where
// ImageFolder would list its files again). A UserError naming the folder when it, or a folder
// below it, cannot be read, is of a pseudo file system (/proc, /sys), lies deeper than
// kMaxFolderDepth, or when the walk meets more than kMaxFolderEntries entries; Interrupted on
// Ctrl-C.
std::vector<std::filesystem::path> list_image_files(const std::filesystem::path& folder);

// The walk's bounds: far beyond any dataset's layout (ImageNet: 2 levels, 1.3 million files).
inline constexpr int kMaxFolderDepth = 64;
inline constexpr std::size_t kMaxFolderEntries = 20'000'000;

}  // namespace runner
