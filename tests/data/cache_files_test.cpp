// The runner's caches (decoded images, per-root file hashes, data fingerprints) where something
// else than the cache lies at their path: a symlink is neither read nor written through, a forged
// header or a FIFO is rebuilt with a warning naming the file. (A FIFO that used to block for ever
// is tested through the binary, with a timeout: tests/cli/cache_fifo_test.cpp.)
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstring>
#include <fstream>

#include "image_writers.h"
#include "runner/data/fingerprint.h"
#include "runner/data/image_cache.h"
#include "runner/data/image_set.h"
#include "runner/util/digest.h"
#include "test_support.h"

namespace runner {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

// Three 8x8 PNGs under dir/images, the cache in dir/cache.
ImageSetRequest three_images(const TempDir& dir) {
  ImageSetRequest request;
  request.root = dir / "images";
  request.height = request.width = 8;
  request.cache_folder = dir / "cache";
  for (int i = 0; i < 3; ++i) {
    const std::string name = "image" + std::to_string(i) + ".png";
    const auto level = static_cast<std::uint16_t>(40 * i);
    testing::write_bytes(request.root / name,
                         testing::png_file(8, 8, 0, 8, std::vector<std::uint16_t>(64, level)));
    request.files.push_back({name, i % 2});
  }
  return request;
}

std::string file_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool mentions(const std::vector<std::string>& warnings, const fs::path& file) {
  for (const std::string& w : warnings) {
    if (w.find(file.string()) != std::string::npos) return true;
  }
  return false;
}

// The per-root hash cache's file, as image_fingerprint.cpp names it.
fs::path hash_cache_of(const ImageSetRequest& request) {
  const std::string key = fs::absolute(request.root).lexically_normal().string();
  return request.cache_folder / ("hashes-" + sha256_hex(key).substr(0, 32) + ".txt");
}

TEST(CacheFiles, ASymlinkAtTheDecodedCacheIsNeitherReadNorWrittenThrough) {
  TempDir dir, elsewhere;
  const ImageSetRequest request = three_images(dir);
  const ImageSet first = read_image_set(request);
  const fs::path file =
      decoded_cache_file(request.cache_folder, decoded_cache_key(request, first.fingerprint));
  ASSERT_TRUE(fs::is_regular_file(file));
  fs::rename(file, elsewhere / "planted.images");  // a whole, valid cache: still not trusted
  const std::string planted = file_text(elsewhere / "planted.images");
  fs::create_symlink(elsewhere / "planted.images", file);
  const ImageSet second = read_image_set(request);
  EXPECT_FALSE(second.from_cache);
  EXPECT_TRUE(mentions(second.warnings, file)) << ::testing::PrintToString(second.warnings);
  EXPECT_EQ(second.images, first.images);
  EXPECT_FALSE(fs::is_symlink(file));
  EXPECT_EQ(file_text(elsewhere / "planted.images"), planted);
  EXPECT_TRUE(read_image_set(request).from_cache) << "rebuilt in place";
}

// A cache's header (112 bytes: magic, shape, version, counts, fingerprint) with these counts.
std::string with_counts(std::string header, std::uint64_t count, std::uint64_t skipped_bytes) {
  std::memcpy(header.data() + 32, &count, 8);
  std::memcpy(header.data() + 40, &skipped_bytes, 8);
  return header;
}

// A cache file as image_cache.cpp lays it out: the header with these counts, the images, the
// labels, the skipped block, and the checksum over them, made right.
std::string sealed_cache(const std::string& header, std::uint64_t count, const std::string& images,
                         const std::string& labels, const std::string& skipped) {
  const std::string head = with_counts(header, count, skipped.size());
  const std::string sum =
      sha256_hex(head + sha256_hex(images) + sha256_hex(labels) + sha256_hex(skipped));
  return head + images + labels + skipped + sum;
}

std::string length_prefixed(const std::string& text) {
  const auto size = static_cast<std::uint32_t>(text.size());
  return std::string(reinterpret_cast<const char*>(&size), 4) + text;
}

// Whatever the decoded cache holds that does not parse as this request's decode is ignored with a
// warning naming the file and what is wrong, and rebuilt. Nothing is allocated from a size the
// header alone gives: sizes that add up to the file's only by wrapping around 2^64 once made the
// reader allocate 2^64 bytes ("basic_string::_M_create", no file named), and a count of images
// the files could not have is refused before the sizes (issue 36).
TEST(CacheFiles, ForgedDecodedCachesAreRebuiltNamingWhatIsWrong) {
  TempDir dir;
  const ImageSetRequest request = three_images(dir);
  const ImageSet first = read_image_set(request);
  const fs::path file =
      decoded_cache_file(request.cache_folder, decoded_cache_key(request, first.fingerprint));
  const std::string whole = file_text(file), header = whole.substr(0, 112);
  const std::string images(3 * 192, '\x7f'), labels(12, '\0');
  const std::pair<std::string, std::string> forged[] = {
      {"shorter than a cache's header", header.substr(0, 50)},
      // 112 + 1 * (192 + 4) + (2^64 - 1) + 64 wraps to 371 bytes.
      {"its header's sizes do not add up to the file's",
       with_counts(header, 1, ~std::uint64_t{0}) + std::string(371 - 112, '\0')},
      {"its header is not a cache of these files",  // 3 channels made 1
       std::string(header).replace(16, 1, "\x01") + whole.substr(112)},
      // Sizes that add up, in a file of zeros: 1000 images of 3 files.
      {"its header counts 1000 images of 3 files",
       sealed_cache(header, 1000, std::string(1000 * 196, '\0'), "", "")},
      {"does not parse", sealed_cache(header, 2, images.substr(0, 384), labels.substr(0, 8),
                                      length_prefixed("b.png") + "\xff\xff")},
      {"does not make up the files",
       sealed_cache(header, 2, images.substr(0, 384), labels.substr(0, 8), "")},
      {"checksum does not match", whole.substr(0, whole.size() - 1) + "0"}};
  for (const auto& [problem, bytes] : forged) {
    testing::write_bytes(file, bytes);
    ImageSet set;
    ASSERT_NO_THROW(set = read_image_set(request)) << problem;
    EXPECT_FALSE(set.from_cache) << problem;
    EXPECT_EQ(set.images, first.images) << problem;
    ASSERT_EQ(set.warnings.size(), 1u) << problem;
    EXPECT_NE(set.warnings[0].find(file.string()), std::string::npos) << set.warnings[0];
    EXPECT_NE(set.warnings[0].find(problem), std::string::npos)
        << problem << " not in: " << set.warnings[0];
    EXPECT_TRUE(read_image_set(request).from_cache) << problem << ": rebuilt";
  }
  // A whole cache of these files, sealed as the runner seals it, is read.
  testing::write_bytes(file, sealed_cache(header, 3, images, labels, ""));
  EXPECT_EQ(read_image_set(request).images, std::vector<std::uint8_t>(3 * 192, 0x7f));
}

TEST(CacheFiles, ASymlinkOrAForgedHashCacheIsRebuiltWithAWarning) {
  TempDir dir, elsewhere;
  const ImageSetRequest request = three_images(dir);
  read_image_set(request);
  const fs::path hashes = hash_cache_of(request);
  ASSERT_TRUE(fs::is_regular_file(hashes));
  fs::rename(hashes, elsewhere / "planted.txt");
  const std::string planted = file_text(elsewhere / "planted.txt");
  fs::create_symlink(elsewhere / "planted.txt", hashes);
  ImageSet set = read_image_set(request);
  EXPECT_TRUE(mentions(set.warnings, hashes)) << ::testing::PrintToString(set.warnings);
  EXPECT_FALSE(fs::is_symlink(hashes));
  EXPECT_EQ(file_text(elsewhere / "planted.txt"), planted);

  testing::write_bytes(hashes, "runner file hashes v1 /somewhere/else\n" + std::string(70, 'z'));
  set = read_image_set(request);
  EXPECT_TRUE(mentions(set.warnings, hashes)) << ::testing::PrintToString(set.warnings);
  EXPECT_TRUE(read_image_set(request).warnings.empty()) << "rebuilt";
}

// data-fingerprints.json under $XDG_CACHE_HOME/runner: a FIFO there is replaced, not kept for
// ever (every run hashing every file again), and a file that is not the cache is warned about.
TEST(CacheFiles, AFingerprintCacheThatIsAFifoIsReplacedWithAWarning) {
  TempDir dir;
  const testing::ScopedEnv env("XDG_CACHE_HOME", dir / "xdg");
  const fs::path cache = dir / "xdg/runner/data-fingerprints.json";
  fs::create_directories(cache.parent_path());
  ASSERT_EQ(::mkfifo(cache.c_str(), 0600), 0);
  const fs::path data = dir.write("data.bin", "some bytes");
  std::vector<std::string> warnings;
  const auto prints = fingerprint_files({data}, warnings);
  EXPECT_EQ(prints.at(0).sha256, sha256_hex("some bytes"));
  EXPECT_TRUE(mentions(warnings, cache)) << ::testing::PrintToString(warnings);
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(cache)));
  warnings.clear();
  fingerprint_files({data}, warnings);
  EXPECT_TRUE(warnings.empty()) << ::testing::PrintToString(warnings);
}

}  // namespace
}  // namespace runner
