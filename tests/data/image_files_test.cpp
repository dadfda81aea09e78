// Finding image files: ImageFolder's classes and order (tests/data/image_golden.json), extensions
// in any case, hidden entries and other files skipped, symlinks followed without looping, each
// real folder once, pseudo file systems and endless nesting refused.
#include "runner/data/image_files.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "runner/util/errors.h"
#include "runner/util/files.h"
#include "test_support.h"

namespace runner {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

std::vector<std::string> strings(const std::vector<fs::path>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) out.push_back(p.generic_string());
  return out;
}

TEST(ImageFiles, ExtensionsInAnyCase) {
  for (const char* name :
       {"a.png", "a.PNG", "b.jpg", "b.JpG", "c.jpeg", "c.JPEG", "d.bmp", "e.webp", "dir/f.WebP"}) {
    EXPECT_TRUE(has_image_extension(name)) << name;
  }
  for (const char* name : {"notes.txt", ".DS_Store", "a.png.txt", "png", "a.tif", "a.gif", "a."}) {
    EXPECT_FALSE(has_image_extension(name)) << name;
  }
}

TEST(ImageFiles, ClassesAndOrderAreImageFoldersOwn) {
  const nlohmann::json golden =
      nlohmann::json::parse(read_file(testing::source_dir() / "tests/data/image_golden.json"));
  const auto& order = golden["order"];
  TempDir dir;
  for (const auto& file : order["files"]) dir.write(file.get<std::string>(), "");
  const auto classes = list_class_folders(dir.path());
  EXPECT_EQ(nlohmann::json(classes), order["classes"]);
  nlohmann::json samples = nlohmann::json::array();
  for (std::size_t c = 0; c < classes.size(); ++c) {
    for (const auto& file : list_image_files(dir / classes[c])) {
      samples.push_back({(fs::path(classes[c]) / file).generic_string(), c});
    }
  }
  EXPECT_EQ(samples, order["samples"]) << samples.dump();
}

TEST(ImageFiles, SkipsHiddenEntriesAndOtherFiles) {
  TempDir dir;
  for (const char* name : {"b.png", "a.JPG", "notes.txt", ".DS_Store", "._a.png", ".hidden/x.png",
                           "sub/.secret.webp", "sub/deeper/c.Jpeg", "sub/d.BMP", "sub/readme.md"}) {
    dir.write(name, "");
  }
  EXPECT_EQ(strings(list_image_files(dir.path())),
            (std::vector<std::string>{"a.JPG", "b.png", "sub/d.BMP", "sub/deeper/c.Jpeg"}));
}

TEST(ImageFiles, ClassFoldersAreSortedFoldersNotHiddenOnes) {
  TempDir dir;
  for (const char* name :
       {"zebra/a.png", "Ant/a.png", "cat/a.png", ".ipynb_checkpoints/a.png", "loose.png"}) {
    dir.write(name, "");
  }
  fs::create_directories(dir / "empty");
  fs::create_directory_symlink(dir / "cat", dir / "kitten");
  EXPECT_EQ(list_class_folders(dir.path()),
            (std::vector<std::string>{"Ant", "cat", "empty", "kitten", "zebra"}));
}

TEST(ImageFiles, FollowsSymlinksWithoutLooping) {
  TempDir dir;
  dir.write("data/a.png", "");
  dir.write("data/sub/b.png", "");
  dir.write("elsewhere/c.png", "");
  fs::create_symlink(dir / "elsewhere/c.png", dir / "data/link.png");
  fs::create_directory_symlink(dir / "elsewhere", dir / "data/more");
  fs::create_directory_symlink(dir / "data", dir / "data/sub/loop");  // a cycle
  fs::create_symlink(dir / "nowhere.png", dir / "data/broken.png");   // listed; fails to read
  EXPECT_EQ(
      strings(list_image_files(dir / "data")),
      (std::vector<std::string>{"a.png", "broken.png", "link.png", "more/c.png", "sub/b.png"}));
}

// Links that fan out (two to the next folder, 20 levels) once made the walk take minutes, the
// work doubling with each level: each real folder is now entered once, its files listed once.
TEST(ImageFiles, LinksThatFanOutVisitEachFolderOnce) {
  TempDir dir;
  const int levels = 20;
  for (int level = 0; level < levels; ++level) {
    const fs::path here = dir / ("level" + std::to_string(level));
    dir.write("level" + std::to_string(level) + "/image.png", "");
    if (level + 1 < levels) {
      const fs::path next = dir / ("level" + std::to_string(level + 1));
      fs::create_directories(next);
      fs::create_directory_symlink(next, here / "left");
      fs::create_directory_symlink(next, here / "right");
    }
  }
  const auto files = list_image_files(dir / "level0");
  EXPECT_EQ(files.size(), static_cast<std::size_t>(levels)) << "one image a level, not 2^level";
  EXPECT_EQ(files.front(), fs::path("image.png"));
  EXPECT_EQ(files[1], fs::path("left/image.png")) << "the first link reaches it";
}

// A class folder linked to /proc never ended (and grew in memory): the kernel's file systems are
// refused, naming the folder and the kind.
TEST(ImageFiles, PseudoFileSystemsAreRefused) {
  TempDir dir;
  dir.write("data/a.png", "");
  fs::create_directory_symlink("/proc", dir / "data/kernel");
  try {
    list_image_files(dir / "data");
    FAIL() << "/proc was walked";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("kernel: a folder of the proc pseudo file system"),
              std::string::npos)
        << error.what();
  }
  EXPECT_THROW(list_class_folders("/sys"), UserError);
}

TEST(ImageFiles, FoldersNestedTooDeepAreAUserError) {
  TempDir dir;
  std::string path = "data";
  for (int level = 0; level <= kMaxFolderDepth; ++level) path += "/d";
  dir.write(path + "/a.png", "");
  try {
    list_image_files(dir / "data");
    FAIL() << "no error";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("nested deeper than 64 levels"), std::string::npos)
        << error.what();
  }
  EXPECT_EQ(list_image_files(dir / "data/d").size(), 1u) << "64 levels are fine";
}

TEST(ImageFiles, MissingOrNonFolderIsAUserError) {
  TempDir dir;
  try {
    list_image_files(dir / "absent");
    FAIL() << "no error";
  } catch (const UserError& error) {
    EXPECT_EQ(std::string(error.what()), (dir / "absent").string() + ": no such folder");
  }
  const auto file = dir.write("file.png", "");
  EXPECT_THROW(list_class_folders(file), UserError);
}

}  // namespace
}  // namespace runner
