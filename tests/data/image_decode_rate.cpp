// Not a test: the measurement scripts/decode_rate.sh runs (skipped unless
// RUNNER_DECODE_RATE_FOLDER names an ImageFolder split). Prints images decoded per second with 1
// and 2 workers, and a cold decode (no caches) against a decoded-cache hit. No assertions on time.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>

#include "runner/data/image_files.h"
#include "runner/data/image_set.h"
#include "test_support.h"

namespace runner {
namespace {

namespace fs = std::filesystem;

// Wall-clock and CPU seconds (all threads) of `work`: on a machine shared with other jobs the
// CPU time says what decoding costs, the wall time what this run got.
struct Seconds {
  double wall = 0, cpu = 0;
};

double cpu_now() {
  timespec t{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + t.tv_nsec * 1e-9;
}

Seconds seconds_of(const std::function<void()>& work) {
  const auto start = std::chrono::steady_clock::now();
  const double cpu = cpu_now();
  work();
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
          cpu_now() - cpu};
}

ImageSetRequest request_for(const fs::path& split, int size) {
  ImageSetRequest request;
  request.root = split;
  request.height = request.width = size;
  const auto classes = list_class_folders(split);
  for (std::size_t c = 0; c < classes.size(); ++c) {
    for (const fs::path& file : list_image_files(split / classes[c])) {
      request.files.push_back({fs::path(classes[c]) / file, static_cast<std::int32_t>(c)});
    }
  }
  return request;
}

TEST(ImageSetRate, DecodeRate) {
  const char* folder = std::getenv("RUNNER_DECODE_RATE_FOLDER");
  if (!folder || !*folder) GTEST_SKIP() << "set RUNNER_DECODE_RATE_FOLDER (scripts/decode_rate.sh)";
  const int size = std::getenv("RUNNER_DECODE_RATE_SIZE")
                       ? std::atoi(std::getenv("RUNNER_DECODE_RATE_SIZE"))
                       : 32;
  ImageSetRequest request;
  const Seconds listing = seconds_of([&] { request = request_for(folder, size); });
  const double n = static_cast<double>(request.files.size());
  std::printf("%zu files listed in %.1f ms; decoded to 3x%dx%d\n", request.files.size(),
              listing.wall * 1e3, size, size);
  request.use_cache = false;
  for (int workers : {1, 2}) {
    request.workers = workers;
    read_image_set(request);  // the files in the page cache, as for every run after the first
    Seconds best{1e9, 1e9};
    for (int repeat = 0; repeat < 3; ++repeat) {
      const Seconds s = seconds_of([&] { read_image_set(request); });
      if (s.wall < best.wall) best = s;
    }
    std::printf(
        "no cache, %d worker(s): %.1f ms, %.0f images/s (%.0f per CPU-second; best of 3, "
        "hashing included)\n",
        workers, best.wall * 1e3, n / best.wall, n / best.cpu);
  }
  testing::TempDir cache;
  request.use_cache = true;
  request.cache_folder = cache.path();
  const Seconds cold = seconds_of([&] { EXPECT_FALSE(read_image_set(request).from_cache); });
  const Seconds warm = seconds_of([&] { EXPECT_TRUE(read_image_set(request).from_cache); });
  std::printf("cache, 2 workers: cold (decode, hash, write both caches) %.1f ms, hit %.1f ms\n",
              cold.wall * 1e3, warm.wall * 1e3);
}

}  // namespace
}  // namespace runner
