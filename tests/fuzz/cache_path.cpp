// check_cache_files: the caches live in `folder`/cache, the hash cache's root is `folder`/root.
#include "cache_path.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>

#include "runner/data/image_cache.h"
#include "runner/data/image_fingerprint.h"

namespace runner::fuzzing {
namespace {

namespace fs = std::filesystem;

void write_text(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
}

std::string text_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Three files of 3x2x2 images, as a run's request would key them.
DecodedCacheKey fuzz_key() {
  DecodedCacheKey key;
  key.fingerprint = std::string(64, 'f');
  key.channels = 3;
  key.height = key.width = 2;
  key.files = 3;
  return key;
}

// Whatever the file holds: absent, with a problem when something is there, or a set that makes
// up the key's files.
std::optional<ImageSet> read_as_cache(const fs::path& file, const DecodedCacheKey& key) {
  std::string problem;
  std::optional<ImageSet> set = read_decoded_cache(file, key, problem);
  const std::size_t plane = 3 * 2 * 2;
  if (set && (set->size() + set->skipped.size() != key.files ||
              set->images.size() != set->size() * plane || !problem.empty())) {
    std::abort();
  }
  return set;
}

void check_decoded_cache(const std::string& text, const fs::path& folder) {
  const DecodedCacheKey key = fuzz_key();
  const fs::path file = decoded_cache_file(folder, key);
  write_text(file, text);
  read_as_cache(file, key);
  // After the key's own header (that of a cache of no images the runner writes), the counts
  // from the text: the sizes' checks, then the checksum's.
  if (!write_decoded_cache(file, ImageSet{3, 2, 2, {}, {}, {}, key.fingerprint, false, {}})) {
    std::abort();
  }
  std::string header = text_of(file).substr(0, 112);
  if (header.size() != 112) std::abort();
  std::memcpy(header.data() + 32, text.data(), std::min<std::size_t>(text.size(), 16));
  write_text(file, header + (text.size() > 16 ? text.substr(16) : ""));
  read_as_cache(file, key);
  // A set whose skipped files' paths and reasons are pieces of the text: read back as written.
  ImageSet set{3, 2, 2, std::vector<std::uint8_t>(12), {0}, {}, key.fingerprint, false, {}};
  std::memcpy(set.images.data(), text.data(), std::min<std::size_t>(text.size(), 12));
  const std::size_t quarter = text.size() / 4;
  for (std::size_t i = 0; i < 2; ++i) {
    set.skipped.push_back(
        {text.substr(2 * i * quarter, quarter), text.substr((2 * i + 1) * quarter, quarter)});
  }
  if (!write_decoded_cache(file, set)) std::abort();
  const std::optional<ImageSet> back = read_as_cache(file, key);
  if (!back || back->images != set.images || back->labels != set.labels) std::abort();
  for (std::size_t i = 0; i < 2; ++i) {
    if (back->skipped[i].path != set.skipped[i].path ||
        back->skipped[i].reason != set.skipped[i].reason) {
      std::abort();
    }
  }
}

// The hash cache read from `file`, then one entry remembered and saved: what it saved must read
// back without a problem.
void read_as_hash_cache(const fs::path& cache, const fs::path& root) {
  FileHashCache hashes(cache, root);
  FileStamp stamp;
  stamp.path = "a.png";
  stamp.exists = true;
  stamp.bytes = 1;
  stamp.modified_ns = 1;
  hashes.find(stamp);
  stamp.sha256 = std::string(64, '0');
  hashes.remember(stamp);
  hashes.save();
  const FileHashCache saved(cache, root);
  if (!saved.problem().empty() || saved.find(stamp) != stamp.sha256) std::abort();
}

void check_hash_cache(const std::string& text, const fs::path& cache, const fs::path& root) {
  const fs::path file = FileHashCache(cache, root).file();
  write_text(file, text);
  read_as_hash_cache(cache, root);
  // After the cache's own first line (the root's), which read_as_hash_cache just wrote.
  const std::string saved = text_of(file);
  write_text(file, saved.substr(0, saved.find('\n') + 1) + text);
  read_as_hash_cache(cache, root);
}

}  // namespace

void check_cache_files(const std::string& text, const fs::path& folder) {
  check_decoded_cache(text, folder / "cache");
  check_hash_cache(text, folder / "cache", folder / "root");
}

}  // namespace runner::fuzzing
