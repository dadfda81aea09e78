// Decoding labelled image lists: the same bytes for any number of workers, bad files as errors
// or skipped, the fingerprint, and the decoded cache (hit, miss on change, corrupt file ignored).
#include "runner/data/image_set.h"

#include <gtest/gtest.h>

#include <fstream>

#include "image_writers.h"
#include "runner/data/image_cache.h"
#include "runner/data/image_resize.h"
#include "runner/util/errors.h"
#include "runner/util/interrupt.h"
#include "test_support.h"

namespace runner {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

// Writes `count` small images of every format and several sizes under root/<class>/, labels by
// class, and returns the request for them (8x8, 3 channels, cache in root/../cache).
ImageSetRequest write_images(const TempDir& dir, int count) {
  ImageSetRequest request;
  request.root = dir / "images";
  request.height = request.width = 8;
  request.cache_folder = dir / "cache";
  for (int i = 0; i < count; ++i) {
    const int h = 5 + i % 7, w = 4 + i % 11;
    const auto rgb = testing::test_pixels(static_cast<std::size_t>(h) * w * 3, i);
    const std::vector<std::uint16_t> samples(rgb.begin(), rgb.end());
    const std::string names[] = {"png", "bmp", "webp", "JPG"};
    const std::string bytes[] = {i % 4 == 0 ? testing::png_file(w, h, 2, 8, samples) : "",
                                 i % 4 == 1 ? testing::bmp_file(w, h, rgb) : "",
                                 i % 4 == 2 ? testing::webp_file(w, h, 3, rgb, true) : "",
                                 i % 4 == 3 ? testing::jpeg_file(w, h, 3, rgb, 90) : ""};
    const fs::path path = fs::path("class" + std::to_string(i % 3)) /
                          ("image" + std::to_string(i) + "." + names[i % 4]);
    testing::write_bytes(request.root / path, bytes[i % 4]);
    request.files.push_back({path, i % 3});
  }
  return request;
}

std::string error_of(const ImageSetRequest& request) {
  try {
    read_image_set(request);
  } catch (const UserError& error) {
    return error.what();
  }
  return "no error";
}

TEST(ImageSet, EachImageIsItsFileDecodedAndResized) {
  TempDir dir;
  ImageSetRequest request = write_images(dir, 8);
  request.use_cache = false;
  for (int channels : {3, 1}) {
    request.channels = channels;
    const ImageSet set = read_image_set(request);
    ASSERT_EQ(set.size(), 8u);
    const std::size_t plane = static_cast<std::size_t>(channels) * 8 * 8;
    for (std::size_t i = 0; i < set.size(); ++i) {
      const Image one =
          resize_image(read_image(request.root / request.files[i].path, channels), 8, 8);
      EXPECT_EQ(std::vector<std::uint8_t>(set.images.begin() + i * plane,
                                          set.images.begin() + (i + 1) * plane),
                one.pixels)
          << request.files[i].path;
      EXPECT_EQ(set.labels[i], request.files[i].label);
    }
    EXPECT_EQ(set.fingerprint.size(), 64u);
    EXPECT_FALSE(set.from_cache);
  }
}

TEST(ImageSet, SameOutputForAnyNumberOfWorkers) {
  TempDir dir;
  ImageSetRequest request = write_images(dir, 23);
  request.use_cache = false;
  request.on_bad_file = OnBadFile::skip;
  testing::write_bytes(request.root / "class0/bad.png", "not a png");
  request.files.insert(request.files.begin() + 5, {"class0/bad.png", 0});
  const ImageSet first = read_image_set(request);
  for (int workers : {1, 2, 3, 8}) {
    request.workers = workers;
    const ImageSet set = read_image_set(request);
    EXPECT_EQ(set.images, first.images) << workers << " workers";
    EXPECT_EQ(set.labels, first.labels) << workers << " workers";
    EXPECT_EQ(set.fingerprint, first.fingerprint) << workers << " workers";
    ASSERT_EQ(set.skipped.size(), 1u);
  }
}

TEST(ImageSet, FirstBadFileInListOrderIsTheError) {
  TempDir dir;
  ImageSetRequest request = write_images(dir, 12);
  const std::string jpeg = testing::jpeg_file(16, 16, 1, testing::test_pixels(256, 1), 90);
  testing::write_bytes(request.root / "class1/cut.jpg", jpeg.substr(0, jpeg.size() / 2));
  testing::write_bytes(request.root / "class2/empty.png", "");
  request.files.insert(request.files.begin() + 3, {"class1/cut.jpg", 1});
  request.files.insert(request.files.begin() + 9, {"class2/empty.png", 2});
  for (int workers : {0, 3}) {
    request.workers = workers;
    const std::string error = error_of(request);
    EXPECT_EQ(error.find((request.root / "class1/cut.jpg").string() + ": truncated JPEG"), 0u)
        << error;
  }
  EXPECT_FALSE(fs::exists(dir / "cache") && !fs::is_empty(dir / "cache") &&
               std::any_of(fs::directory_iterator(dir / "cache"), fs::directory_iterator(),
                           [](const auto& e) { return e.path().extension() == ".images"; }))
      << "an error leaves no decoded cache";
}

TEST(ImageSet, SkipLeavesBadFilesOutAndListsThem) {
  TempDir dir;
  ImageSetRequest request = write_images(dir, 6);
  request.on_bad_file = OnBadFile::skip;
  request.workers = 2;
  testing::write_bytes(request.root / "class0/text.png", "hello");
  request.files.insert(request.files.begin() + 1, {"class0/text.png", 0});
  request.files.push_back({"class1/missing.webp", 1});
  const ImageSet set = read_image_set(request);
  ASSERT_EQ(set.size(), 6u);
  ASSERT_EQ(set.skipped.size(), 2u);
  EXPECT_EQ(set.skipped[0].path, "class0/text.png");
  EXPECT_EQ(set.skipped[0].reason, (request.root / "class0/text.png").string() +
                                       ": not an image (no known signature: expected PNG, "
                                       "JPEG, WebP or BMP)");
  EXPECT_EQ(set.skipped[1].path, "class1/missing.webp");
  EXPECT_NE(set.skipped[1].reason.find("No such file"), std::string::npos);
  EXPECT_EQ(set.labels, (std::vector<std::int32_t>{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(set.images.size(), 6u * 3 * 8 * 8);

  // The same set from the cache: skipped files included; asked without skipping, still an error.
  const ImageSet cached = read_image_set(request);
  EXPECT_TRUE(cached.from_cache);
  EXPECT_EQ(cached.images, set.images);
  ASSERT_EQ(cached.skipped.size(), 2u);
  EXPECT_EQ(cached.skipped[0].reason, set.skipped[0].reason);
  request.on_bad_file = OnBadFile::error;
  EXPECT_EQ(error_of(request), set.skipped[0].reason);
}

TEST(ImageSet, CacheHitGivesIdenticalBytes) {
  TempDir dir;
  ImageSetRequest request = write_images(dir, 10);
  request.workers = 2;
  const ImageSet cold = read_image_set(request);
  EXPECT_FALSE(cold.from_cache);
  const ImageSet warm = read_image_set(request);
  EXPECT_TRUE(warm.from_cache);
  EXPECT_EQ(warm.images, cold.images);
  EXPECT_EQ(warm.labels, cold.labels);
  EXPECT_EQ(warm.fingerprint, cold.fingerprint);
  EXPECT_EQ(warm.channels, 3);
  // Another size or channel count is another cache file.
  request.height = 6;
  EXPECT_FALSE(read_image_set(request).from_cache);
  request.channels = 1;
  EXPECT_FALSE(read_image_set(request).from_cache);
}

TEST(ImageSet, ChangedFilesOrLabelsMissTheCache) {
  TempDir dir;
  ImageSetRequest request = write_images(dir, 6);
  const ImageSet original = read_image_set(request);
  auto expect_miss = [&](const char* what) {
    const ImageSet set = read_image_set(request);
    EXPECT_FALSE(set.from_cache) << what;
    EXPECT_NE(set.fingerprint, original.fingerprint) << what;
    EXPECT_TRUE(read_image_set(request).from_cache) << what << ", read again";
  };
  const auto rgb = testing::test_pixels(5 * 5 * 3, 99);
  testing::write_bytes(request.root / "class0/new.bmp", testing::bmp_file(5, 5, rgb));
  request.files.push_back({"class0/new.bmp", 0});
  expect_miss("a file added");
  request.files.pop_back();
  EXPECT_TRUE(read_image_set(request).from_cache) << "back as it was";
  testing::write_bytes(request.root / request.files[0].path,
                       testing::bmp_file(5, 5, testing::test_pixels(75, 100)));
  expect_miss("a file edited");
  request.files.erase(request.files.begin() + 2);
  expect_miss("a file removed");
  std::swap(request.files[0].label, request.files[1].label);  // same counts per class
  expect_miss("two labels swapped");
}

TEST(ImageSet, UnchangedFilesAreNotHashedAgain) {
  // Hashes are remembered by size and modification time, as the data fingerprints are: a file
  // rewritten with the same size and time is taken as unchanged (that is the bargain).
  TempDir dir;
  ImageSetRequest request = write_images(dir, 4);
  request.files = {request.files[1]};  // class1/image1.bmp, 5x6: another one has the same size
  const ImageSet first = read_image_set(request);
  const fs::path file = request.root / request.files[0].path;
  const auto time = fs::last_write_time(file);
  const std::string bytes = testing::bmp_file(5, 6, testing::test_pixels(90, 1234));
  ASSERT_EQ(bytes.size(), fs::file_size(file));
  testing::write_bytes(file, bytes);
  fs::last_write_time(file, time);
  const ImageSet second = read_image_set(request);
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(second.images, first.images);
  fs::last_write_time(file, time + std::chrono::seconds(1));
  EXPECT_FALSE(read_image_set(request).from_cache) << "a new time: hashed, and it changed";
}

TEST(ImageSet, CorruptOrTruncatedCacheIsIgnoredAndRebuilt) {
  TempDir dir;
  ImageSetRequest request = write_images(dir, 5);
  const ImageSet original = read_image_set(request);
  const fs::path file = decoded_cache_file(dir / "cache", original.fingerprint, 3, 8, 8);
  ASSERT_TRUE(fs::exists(file));
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(200);
    f.put('\x5a');  // a pixel of the first image
  }
  ImageSet set = read_image_set(request);
  EXPECT_FALSE(set.from_cache) << "a flipped byte";
  EXPECT_EQ(set.images, original.images);
  EXPECT_TRUE(read_image_set(request).from_cache) << "rebuilt";
  fs::resize_file(file, fs::file_size(file) - 10);
  EXPECT_FALSE(read_image_set(request).from_cache) << "truncated";
  testing::write_bytes(file, "");
  EXPECT_FALSE(read_image_set(request).from_cache) << "empty";
  EXPECT_EQ(read_image_set(request).images, original.images);
}

TEST(ImageSet, UnwritableCacheFolderIsNotAnError) {
  TempDir dir;
  ImageSetRequest request = write_images(dir, 3);
  testing::write_bytes(dir / "a_file", "x");
  request.cache_folder = dir / "a_file" / "cache";  // cannot be created
  EXPECT_FALSE(read_image_set(request).from_cache);
  EXPECT_EQ(read_image_set(request).size(), 3u);
}

// Ctrl-C while files are looked at, hashed or decoded stops the reading (it once decoded every
// file first): nothing is returned and no cache is written.
TEST(ImageSet, CtrlCStopsTheReadingAndWritesNoCache) {
  TempDir dir;
  ImageSetRequest request = write_images(dir, 6);
  request_interrupt();
  try {
    read_image_set(request);
    begin_cleanup_after_interrupt();
    FAIL() << "read every image after an interrupt";
  } catch (const Interrupted& stop) {
    begin_cleanup_after_interrupt();
    EXPECT_STREQ(stop.what(), "interrupted while looking at the image files");
  }
  EXPECT_FALSE(fs::exists(dir / "cache"));
}

TEST(ImageSet, DefaultCacheFolderFollowsXdg) {
  const testing::ScopedEnv env("XDG_CACHE_HOME", "/somewhere/cache");
  EXPECT_EQ(default_image_cache_folder(), fs::path("/somewhere/cache/runner/images"));
}

}  // namespace
}  // namespace runner
