// A FIFO at a cache path (the decoded images `<fingerprint>-CxHxW.images`, the per-root hashes
// `hashes-*.txt`) once made a run wait in open() for ever: each run here has 60 s to finish
// (then it is killed), warns about the file and replaces it with the cache.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "data/image_writers.h"
#include "test_support.h"

namespace runner::testing {
namespace {

namespace fs = std::filesystem;

// A csv dataset of four 4x4 grey PNGs and a config training a linear model on it for one epoch,
// its decoded-image cache in tmp/cache.
fs::path csv_config(const TempDir& tmp) {
  std::string rows;
  for (int i = 0; i < 4; ++i) {
    const std::string name = "img" + std::to_string(i) + ".png";
    write_bytes(
        tmp / "data" / name,
        png_file(4, 4, 0, 8, std::vector<std::uint16_t>(16, static_cast<std::uint16_t>(60 * i))));
    rows += name + "," + std::to_string(i % 2) + "\n";
  }
  write_bytes(tmp / "data/train.csv", rows);
  write_bytes(tmp / "data/test.csv", rows);
  return tmp.write(
      "c.yaml", "name: fifo\ndevice: cpu\ndataset: {name: csv, root: " + (tmp / "data").string() +
                    ", image_size: 4, channels: 1, cache: " + (tmp / "cache").string() +
                    ", workers: 0}\nmodel:\n  layers:\n"
                    "    - {name: flat, type: flatten}\n"
                    "    - {name: fc, type: linear, out_features: 2}\n"
                    "training: {epochs: 1, batch_size: 2, optimizer: {type: sgd}}\n");
}

// The one file in `folder` whose name ends in `suffix`.
fs::path only_file(const fs::path& folder, const std::string& suffix) {
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if (entry.path().string().ends_with(suffix)) found.push_back(entry.path());
  }
  EXPECT_EQ(found.size(), 1u) << folder;
  return found.empty() ? folder / ("none" + suffix) : found.front();
}

TEST(CacheFifo, AFifoAtEitherCachePathIsReplacedNotWaitedOn) {
  TempDir tmp;
  // -k: the runner catches SIGTERM (to stop cleanly), which does not end a blocked open().
  const std::string run = "timeout -k 5 60 " + std::string(RUNNER_BINARY) + " " +
                          csv_config(tmp).string() + " --quiet --output " + (tmp / "out").string();
  const CommandResult first = run_command(run);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  for (const char* suffix : {".images", ".txt"}) {
    SCOPED_TRACE(suffix);
    const fs::path cache = only_file(tmp / "cache", suffix);
    fs::remove(cache);
    ASSERT_EQ(::mkfifo(cache.c_str(), 0600), 0);
    const CommandResult again = run_command(run);
    ASSERT_TRUE(again.exit_code != 124 && again.exit_code != 137)
        << "timed out: waited on the FIFO " << cache;
    EXPECT_EQ(again.exit_code, 0) << again.output;
    EXPECT_NE(again.output.find(cache.string()), std::string::npos) << again.output;
    EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(cache))) << "replaced by the cache";
  }
}

}  // namespace
}  // namespace runner::testing
