// The decoded-image cache file: a fixed header, the images, the labels, the skipped files, and a
// SHA-256 checksum over all of it (hashed piece by piece: the images are never copied).
#include "runner/data/image_cache.h"

#include <fmt/format.h>

#include <cstring>

#include "runner/data/image_fit.h"
#include "runner/util/cache_file.h"
#include "runner/util/digest.h"

namespace runner {
namespace {

namespace fs = std::filesystem;

// Bumped whenever decoding or resizing changes what the same files give, so that caches of the
// old pixels are no longer found.
constexpr std::uint32_t decoder_version = 1;
constexpr char magic[17] = "runner images 1\n";

struct Header {
  char magic[16];
  std::uint32_t channels, height, width, decoder_version;
  std::uint64_t count, skipped_bytes;
  char fingerprint[64];
};
static_assert(sizeof(Header) == 112);

std::string_view bytes_of(const void* data, std::size_t size) {
  return {static_cast<const char*>(data), size};
}

template <typename T>
std::string_view bytes_of(const std::vector<T>& v) {
  return bytes_of(v.data(), v.size() * sizeof(T));
}

// Each skipped file as (u32 length, path, u32 length, reason).
std::string skipped_block(const std::vector<SkippedFile>& skipped) {
  std::string out;
  auto append = [&](const std::string& s) {
    const auto size = static_cast<std::uint32_t>(s.size());
    out.append(bytes_of(&size, 4)).append(s);
  };
  for (const SkippedFile& f : skipped) {
    append(f.path.string());
    append(f.reason);
  }
  return out;
}

bool parse_skipped(std::string_view block, std::vector<SkippedFile>& out) {
  auto take = [&](std::string& s) {
    std::uint32_t size;
    if (block.size() < 4) return false;
    std::memcpy(&size, block.data(), 4);
    if (block.size() - 4 < size) return false;
    s.assign(block.substr(4, size));
    block.remove_prefix(4 + size);
    return true;
  };
  std::string path, reason;
  while (!block.empty()) {
    if (!take(path) || !take(reason)) return false;
    out.push_back({path, reason});
  }
  return true;
}

std::string checksum(const Header& header, std::string_view images, std::string_view labels,
                     std::string_view skipped) {
  return sha256_hex(std::string(bytes_of(&header, sizeof header)) + sha256_hex(images) +
                    sha256_hex(labels) + sha256_hex(skipped));
}

Header make_header(const std::string& fingerprint, int channels, int height, int width,
                   std::size_t count, std::size_t skipped_bytes) {
  Header h{};
  std::memcpy(h.magic, magic, sizeof h.magic);
  h.channels = static_cast<std::uint32_t>(channels);
  h.height = static_cast<std::uint32_t>(height);
  h.width = static_cast<std::uint32_t>(width);
  h.decoder_version = decoder_version;
  h.count = count;
  h.skipped_bytes = skipped_bytes;
  std::memcpy(h.fingerprint, fingerprint.data(),
              std::min(fingerprint.size(), sizeof h.fingerprint));
  return h;
}

}  // namespace

DecodedCacheKey decoded_cache_key(const ImageSetRequest& request, const std::string& fingerprint) {
  return {fingerprint,         request.channels,        request.height,
          request.width,       request.max_image_bytes, request.files.size(),
          fit_key(request.fit)};
}

fs::path decoded_cache_file(const fs::path& folder, const DecodedCacheKey& key) {
  const std::string limit = key.max_image_bytes == kDefaultMaxImageBytes
                                ? ""
                                : fmt::format("-max{}", key.max_image_bytes);
  const std::string fit = key.fit.empty() ? "" : "-" + key.fit;
  return folder / fmt::format("{}-{}x{}x{}{}{}.images", key.fingerprint, key.channels, key.height,
                              key.width, fit, limit);
}

std::optional<ImageSet> read_decoded_cache(const fs::path& file, const DecodedCacheKey& key,
                                           std::string& problem) {
  const int channels = key.channels, height = key.height, width = key.width;
  CacheFile in(file);
  problem = in.problem();
  Header h{};
  if (!in.is_open()) return std::nullopt;
  if (!in.read(&h, sizeof h)) {
    problem = "shorter than a cache's header";
    return std::nullopt;
  }
  const Header expected =
      make_header(key.fingerprint, channels, height, width, h.count, h.skipped_bytes);
  if (std::memcmp(&h, &expected, sizeof h) != 0) {
    // Another decoder's cache of the same files is an old cache, not a forged one: no warning.
    const bool old =
        std::memcmp(h.magic, magic, sizeof h.magic) == 0 && h.decoder_version != decoder_version;
    if (!old) problem = "its header is not a cache of these files";
    return std::nullopt;
  }
  // Each part at most the file's size, so that their sum cannot wrap around 2^64 into the size.
  const std::uint64_t plane = static_cast<std::uint64_t>(channels) * height * width;
  const std::uint64_t bytes = in.size();
  if (plane == 0 || h.count > bytes / (plane + 4) || h.skipped_bytes > bytes ||
      bytes != sizeof h + h.count * (plane + 4) + h.skipped_bytes + 64) {
    problem = "its header's sizes do not add up to the file's";
    return std::nullopt;
  }
  if (h.count > key.files) {  // a file of zeros may be as large as it likes: not the files
    problem = fmt::format("its header counts {} images of {} files", h.count, key.files);
    return std::nullopt;
  }
  ImageSet set{channels, height, width, {}, {}, {}, key.fingerprint, true, {}};
  set.images.resize(h.count * plane);
  set.labels.resize(h.count);
  std::string skipped(h.skipped_bytes, '\0'), stored(64, '\0');
  if (!in.read(set.images.data(), set.images.size()) || !in.read(set.labels.data(), h.count * 4) ||
      !in.read(skipped.data(), skipped.size()) || !in.read(stored.data(), 64) ||
      stored != checksum(h, bytes_of(set.images), bytes_of(set.labels), skipped)) {
    problem = "its checksum does not match its contents";
    return std::nullopt;
  }
  if (!parse_skipped(skipped, set.skipped) || set.size() + set.skipped.size() != key.files) {
    problem = "its list of skipped files does not parse, or does not make up the files";
    return std::nullopt;
  }
  return set;
}

bool write_decoded_cache(const fs::path& file, const ImageSet& set) {
  const std::string skipped = skipped_block(set.skipped);
  const Header h =
      make_header(set.fingerprint, set.channels, set.height, set.width, set.size(), skipped.size());
  const std::string sum = checksum(h, bytes_of(set.images), bytes_of(set.labels), skipped);
  return write_pieces_atomically(
      file, {bytes_of(&h, sizeof h), bytes_of(set.images), bytes_of(set.labels), skipped, sum});
}

}  // namespace runner
