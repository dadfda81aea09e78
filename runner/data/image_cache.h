// The decoded-image cache: one file per fingerprint, channels and size holding the decoded
// images, labels and skipped files, with a header and a checksum. A file that does not match in
// every respect is ignored (and rebuilt by the caller), never trusted.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "runner/data/image_set.h"

namespace runner {

// The cache file for a fingerprint, channels and size in `folder`.
std::filesystem::path decoded_cache_file(const std::filesystem::path& folder,
                                         const std::string& fingerprint, int channels, int height,
                                         int width);

// The set stored in `file` when it is whole and for this fingerprint, channels and size.
std::optional<ImageSet> read_decoded_cache(const std::filesystem::path& file,
                                           const std::string& fingerprint, int channels, int height,
                                           int width);

// Stores `set` (its fingerprint, channels and size included); false when it could not (a
// read-only home, a full disk): the cache is an optimisation, so that is not an error.
bool write_decoded_cache(const std::filesystem::path& file, const ImageSet& set);

// Writes the concatenated `pieces` to `file` through a temporary file of a name unique to this
// process and call, then rename(); creates the folder. False, leaving nothing behind, on failure.
bool write_pieces_atomically(const std::filesystem::path& file,
                             std::initializer_list<std::string_view> pieces);

}  // namespace runner
