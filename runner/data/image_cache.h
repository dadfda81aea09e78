// The decoded-image cache: one file per fingerprint, channels and size holding the decoded
// images, labels and skipped files, with a header and a checksum. A file that does not match in
// every respect is ignored (and rebuilt by the caller), never trusted; one that is no regular
// file (a FIFO, a link) is not even opened for reading.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "runner/data/image_set.h"

namespace runner {

// What a cache holds the decode of: the files (their fingerprint and number), the channels and
// size they were converted to, and the limit on one image's memory (what one limit leaves out,
// a larger one reads).
struct DecodedCacheKey {
  std::string fingerprint;
  int channels = 0, height = 0, width = 0;
  std::int64_t max_image_bytes = kDefaultMaxImageBytes;
  std::size_t files = 0;  // decoded or skipped
  std::string fit;        // ImageFit::key() of the decode ("": resized to the size)
};

// The key of `request`'s decode, its files fingerprinted as `fingerprint`.
DecodedCacheKey decoded_cache_key(const ImageSetRequest& request, const std::string& fingerprint);

// The cache file of `key` in `folder`: <fingerprint>-CxHxW.images (-<fit> and -max<N> before the
// extension for a fit and a limit other than the defaults).
std::filesystem::path decoded_cache_file(const std::filesystem::path& folder,
                                         const DecodedCacheKey& key);

// The set stored in `file` when it is whole and the decode of `key`. When something else is
// there (not a regular file, a header that is not this key's or whose sizes do not add up to the
// file's or to key.files, a checksum that does not match, a list of skipped files that does not
// parse), `problem` says what, for the caller's warning; it stays "" when nothing is there or the
// file is another decoder version's. Nothing is allocated before the sizes are checked against
// both the file's size and key.files.
std::optional<ImageSet> read_decoded_cache(const std::filesystem::path& file,
                                           const DecodedCacheKey& key, std::string& problem);

// Stores `set` (its fingerprint, channels and size included); false when it could not (a
// read-only home, a full disk): the cache is an optimisation, so that is not an error.
bool write_decoded_cache(const std::filesystem::path& file, const ImageSet& set);

}  // namespace runner
