// Run folders (issue 11): runs of one config started in the same second each get their own
// folder, and an --output that cannot be a folder is a clear error.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <thread>
#include <vector>

#include "runner/report/report.h"
#include "test_support.h"

namespace runner::testing {
namespace {

TEST(RunDirectory, RunsStartedTogetherGetTheirOwnFolders) {
  TempDir tmp;
  constexpr int kThreads = 8, kEach = 25;
  std::vector<std::vector<std::filesystem::path>> made(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i)
        made[t].push_back(new_run_directory(tmp.path(), "same", "0123456789abcdef"));
    });
  }
  for (auto& thread : threads) thread.join();
  std::set<std::filesystem::path> distinct;
  for (const auto& paths : made) distinct.insert(paths.begin(), paths.end());
  EXPECT_EQ(distinct.size(), static_cast<std::size_t>(kThreads * kEach));
}

TEST(RunDirectory, AnOutputThatIsAFileIsAClearError) {
  TempDir tmp;
  std::ofstream(tmp / "file") << "x";
  auto config = (source_dir() / "configs" / "tiny_synthetic.yaml").string();
  for (const auto& output : {tmp / "file", tmp / "file" / "deeper"}) {
    auto result =
        run_runner(config + " --quiet --set training.epochs=1 --output " + output.string());
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_NE(result.output.find((tmp / "file").string() + " is a file, expected a folder"),
              std::string::npos)
        << result.output;
  }
  auto long_name = run_runner(config + " --quiet --set training.epochs=1 --output " +
                              (tmp / std::string(300, 'a')).string());
  EXPECT_EQ(long_name.exit_code, 2) << long_name.output;
  EXPECT_NE(long_name.output.find("File name too long"), std::string::npos) << long_name.output;
}

}  // namespace
}  // namespace runner::testing
