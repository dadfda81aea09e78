// Writes in shared folders never go through a planted symlink, and never replace anything but a
// regular file (issue 24); reads, whole or a line at a time (runner/util/line_reader.h), open
// only regular files.
#include "runner/util/files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <functional>

#include "runner/util/errors.h"
#include "runner/util/folder_lock.h"
#include "runner/util/line_reader.h"
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

// A file read a line at a time: lines across the read buffer's pieces, a last line without a
// line break, a line past the limit, and what is not a regular file (which would block or never
// end), refused as whole-file reads refuse it.
std::vector<std::string> lines_of(const std::filesystem::path& file, std::size_t max_line) {
  LineReader reader(file, max_line, "a list");
  std::vector<std::string> lines;
  for (std::string_view line; reader.next(line);) {
    lines.emplace_back(line);
    EXPECT_EQ(reader.line_number(), static_cast<long long>(lines.size()));
  }
  return lines;
}

TEST(LineReader, GivesEveryLineWhereverTheReadsCutThem) {
  testing::TempDir dir;
  std::vector<std::string> expected;
  std::string text;
  for (int i = 0; i < 20'000; ++i) {  // about 300 KB: lines across several 64 KiB pieces
    expected.push_back(std::string(static_cast<std::size_t>(i % 23), 'x') + std::to_string(i));
    text += expected.back() + "\n";
  }
  expected.push_back("");  // an empty line, then a last one without a line break
  expected.push_back("last");
  text += "\nlast";
  EXPECT_EQ(lines_of(dir.write("list.txt", text), 100), expected);
  EXPECT_TRUE(lines_of(dir.write("empty.txt", ""), 100).empty());
  EXPECT_EQ(lines_of(dir.write("one.txt", "one\n"), 100), std::vector<std::string>{"one"});
}

TEST(LineReader, ALineLongerThanTheLimitIsAnErrorNamingIt) {
  testing::TempDir dir;
  const auto file = dir.write("list.txt", "short\n" + std::string(200'000, 'y') + "\nshort\n");
  EXPECT_EQ(error_of([&] { lines_of(file, 1000); }),
            file.string() + ": line 2 is longer than 1000 bytes, expected a row of a list");
  EXPECT_EQ(lines_of(file, 200'000).size(), 3u);
}

TEST(LineReader, OnlyARegularFileIsOpened) {
  testing::TempDir dir;
  const auto fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(
      error_of([&] { LineReader(fifo, 100, "a list"); }),
      fifo.string() + ": is not a regular file (a FIFO, a socket or a device), expected a list");
  EXPECT_EQ(error_of([&] { LineReader(dir.path(), 100, "a list"); }),
            dir.path().string() + ": is a folder, expected a list");
  EXPECT_EQ(error_of([&] { LineReader(dir / "gone", 100, "a list"); }),
            (dir / "gone").string() + ": not found, expected a list");
  // The whole-file read refuses them alike.
  EXPECT_EQ(error_of([&] { read_regular_file(fifo, 100, "a list"); }),
            error_of([&] { LineReader(fifo, 100, "a list"); }));
}

}  // namespace
}  // namespace runner
