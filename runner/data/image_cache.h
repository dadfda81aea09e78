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

// The cache file for a fingerprint, channels and size in `folder`.
std::filesystem::path decoded_cache_file(const std::filesystem::path& folder,
                                         const std::string& fingerprint, int channels, int height,
                                         int width);

// The set stored in `file` when it is whole and for this fingerprint, channels and size. When
// something else is there (not a regular file, a header that does not add up, a checksum that
// does not match), `problem` says what, for the caller's warning; it stays "" when nothing is
// there or the file is another decoder version's.
std::optional<ImageSet> read_decoded_cache(const std::filesystem::path& file,
                                           const std::string& fingerprint, int channels, int height,
                                           int width, std::string& problem);

// Stores `set` (its fingerprint, channels and size included); false when it could not (a
// read-only home, a full disk): the cache is an optimisation, so that is not an error.
bool write_decoded_cache(const std::filesystem::path& file, const ImageSet& set);

}  // namespace runner
