// Decoding a labelled list of image files into one uint8 tensor, in parallel, with a fingerprint
// of the files and a cache of the decoded result: the library under the image_folder and csv
// dataset formats.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "runner/data/dataset_spec.h"  // OnBadFile, kDefaultMaxImageBytes

namespace runner {

struct LabelledFile {
  std::filesystem::path path;  // relative to ImageSetRequest::root
  std::int32_t label = 0;
};

struct ImageSetRequest {
  std::filesystem::path root;
  std::vector<LabelledFile> files;  // in the order the images come out
  int channels = 3;                 // 1 or 3, as Pillow's convert('L') or convert('RGB')
  int height = 0, width = 0;        // every image fitted to this (by default resized to it)
  ImageFit fit;                     // how: dataset.eval_transform for held-out splits
  int workers = 0;                  // decoding threads; 0 or 1: the calling thread
  OnBadFile on_bad_file = OnBadFile::error;
  bool use_cache = true;
  std::filesystem::path cache_folder;  // empty: default_image_cache_folder()
  // The most bytes decoding one image may hold (dataset.max_image_bytes; decode_image). A cache
  // is kept per limit: what one limit left out another may read.
  std::int64_t max_image_bytes = kDefaultMaxImageBytes;
};

struct SkippedFile {
  std::filesystem::path path;  // as in the request
  std::string reason;          // the error's message, which names the file
};

struct ImageSet {
  int channels = 0, height = 0, width = 0;
  std::vector<std::uint8_t> images;   // (N, C, H, W)
  std::vector<std::int32_t> labels;   // (N)
  std::vector<SkippedFile> skipped;   // left out (on_bad_file: skip), in request order; the
                                      // caller prints one warning per file
  std::string fingerprint;            // SHA-256 hex of the listed files (image_fingerprint.h)
  bool from_cache = false;            // read from the decoded cache instead of the image files
  std::vector<std::string> warnings;  // caches found unusable (a FIFO, a link, a forged header),
                                      // each naming its file; they were rebuilt
  std::vector<std::filesystem::path> files;  // list_image_set's: the files kept, in order

  std::size_t size() const { return labels.size(); }
};

// Decodes every file of the request (or reads the cache of an identical earlier decode). The
// output is the same whatever the number of workers. A file that cannot be read or decoded is a
// UserError naming it (the first such file in list order), or with on_bad_file skip is left out
// and listed in `skipped`.
ImageSet read_image_set(const ImageSetRequest& request);

// The same set listed, not decoded (dataset.decode: per_epoch): the labels, the fingerprint and
// `files` (images stay empty). Each file not fingerprinted before is read, hashed and checked to
// be an image of a known format (a file that is not is an error or, with on_bad_file skip, left
// out); a file that is one but does not decode is found when a batch decodes it.
ImageSet list_image_set(const ImageSetRequest& request);

// $XDG_CACHE_HOME/runner/images, else ~/.cache/runner/images; empty when neither is set.
std::filesystem::path default_image_cache_folder();

}  // namespace runner
