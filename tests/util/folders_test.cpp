// Output folders (issue 11): a file in the way is a clear error, and the containment check sees
// through symlinks and '..'.
#include "runner/util/folders.h"

#include <gtest/gtest.h>

#include <fstream>

#include "runner/util/errors.h"
#include "test_support.h"

namespace runner::testing {
namespace {

TEST(Folders, AFileInTheWayIsNamed) {
  TempDir tmp;
  std::ofstream(tmp / "file") << "x";
  try {
    create_folders(tmp / "file" / "runs", "the runs' folder");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot create the runs' folder: " +
                                         (tmp / "file").string() + " is a file, expected a folder"),
              std::string::npos)
        << e.what();
  }
}

TEST(Folders, ANameTooLongIsAUserError) {
  TempDir tmp;
  EXPECT_THROW(create_folders(tmp / std::string(300, 'a'), "the run's folder"), UserError);
}

TEST(Folders, ANewFolderIsClaimedOnce) {
  TempDir tmp;
  EXPECT_TRUE(create_new_folder(tmp / "run", "the run's folder"));
  EXPECT_FALSE(create_new_folder(tmp / "run", "the run's folder"));
}

TEST(Folders, InsideMeansInsideAfterSymlinksAndDotDot) {
  TempDir tmp;
  std::filesystem::create_directories(tmp / "run" / "sub");
  std::filesystem::create_directories(tmp / "outside");
  std::filesystem::create_directory_symlink(tmp / "outside", tmp / "run" / "link");
  EXPECT_TRUE(is_inside_folder(tmp / "run", tmp / "run" / "c.safetensors"));
  EXPECT_TRUE(is_inside_folder(tmp / "run", tmp / "run" / "sub" / "new" / "c.safetensors"));
  EXPECT_FALSE(is_inside_folder(tmp / "run", tmp / "run" / "link" / "c.safetensors"));
  EXPECT_FALSE(is_inside_folder(tmp / "run", tmp / "run" / ".." / "c.safetensors"));
  EXPECT_FALSE(is_inside_folder(tmp / "run", tmp / "run"));
  EXPECT_FALSE(is_inside_folder(tmp / "run", tmp / "run2" / "c.safetensors"));
}

// The base may be a link (where the user keeps results); a part inside it may not, at any depth.
TEST(Folders, AFolderInsideIsNeverMadeThroughALink) {
  TempDir tmp;
  std::filesystem::create_directories(tmp / "results");
  std::filesystem::create_directories(tmp / "elsewhere");
  std::filesystem::create_directory_symlink(tmp / "results", tmp / "base");
  create_folders_inside({tmp / "base", "tb/point"}, "the TensorBoard folder");
  EXPECT_TRUE(std::filesystem::is_directory(tmp / "results" / "tb" / "point"));
  EXPECT_EQ(first_link_inside({tmp / "base", "tb/point"}), std::filesystem::path());

  for (const char* link : {"tb/linked", "tb/point/deeper"}) {
    std::filesystem::create_directory_symlink(tmp / "elsewhere", tmp / "base" / link);
    const FolderInside folder{tmp / "base", std::filesystem::path(link) / "new"};
    EXPECT_EQ(first_link_inside(folder), tmp / "base" / link);
    try {
      create_folders_inside(folder, "the TensorBoard folder");
      ADD_FAILURE() << link << ": no error";
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find((tmp / "base" / link).string() + " is a symbolic link"),
                std::string::npos)
          << e.what();
    }
    EXPECT_TRUE(std::filesystem::is_empty(tmp / "elsewhere")) << link;
  }
  EXPECT_THROW(create_folders_inside({tmp / "base", "../x"}, "the TensorBoard folder"), UserError);
}

}  // namespace
}  // namespace runner::testing
