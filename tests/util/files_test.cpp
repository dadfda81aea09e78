// Writes in shared folders never go through a planted symlink, and never replace anything but a
// regular file (issue 24).
#include "runner/util/files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <functional>

#include "runner/util/errors.h"
#include "runner/util/folder_lock.h"
#include "test_support.h"

namespace runner {
namespace {

std::string contents(const std::filesystem::path& file) {
  std::ifstream in(file);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const UserError& error) {
    return error.what();
  }
  return "";
}

TEST(AtomicWrite, APlantedLinkAtTheTemporaryNameIsNotFollowed) {
  testing::TempDir dir;
  const auto victim = dir / "victim.txt";
  std::ofstream(victim) << "keep me";
  const auto report = dir / "report.json";
  std::filesystem::create_symlink(victim, dir / ("report.json.tmp." + std::to_string(::getpid())));
  write_file_atomically(report, "{}\n");
  EXPECT_EQ(contents(report), "{}\n");
  EXPECT_EQ(contents(victim), "keep me") << "the write went through the planted link";
}

TEST(AtomicWrite, OnlyARegularFileIsReplaced) {
  testing::TempDir dir;
  const auto fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(error_of([&] { write_file_atomically(fifo, "x"); }).find("is a FIFO"),
            std::string::npos);
  EXPECT_TRUE(std::filesystem::is_fifo(fifo));
  std::filesystem::create_directory(dir / "folder");
  EXPECT_NE(error_of([&] { write_file_atomically(dir / "folder", "x"); }).find("is a folder"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              check_replaceable_file("/dev/null", "checkpoint.path");
            }).find("checkpoint.path: /dev/null is a device"),
            std::string::npos);
  std::ofstream(dir / "file") << "old";
  write_file_atomically(dir / "file", "new");
  EXPECT_EQ(contents(dir / "file"), "new");
}

TEST(FolderLock, APlantedLockLinkIsRefusedAndItsTargetUntouched) {
  testing::TempDir dir;
  const auto victim = dir / "victim.txt";
  std::ofstream(victim) << "keep me";
  std::filesystem::create_directory(dir / "sweep");
  std::filesystem::create_symlink(victim, dir / "sweep" / ".lock");
  std::string message =
      error_of([&] { FolderLock lock(dir / "sweep", "sweep", LockMode::exclusive); });
  EXPECT_NE(message.find(".lock: is a symbolic link, expected the sweep's own lock file"),
            std::string::npos)
      << message;
  EXPECT_EQ(contents(victim), "keep me");
}

}  // namespace
}  // namespace runner
