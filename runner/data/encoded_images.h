// A training split decoded as its batches are made (dataset.decode: per_epoch): the files and how
// to decode them, instead of their pixels. Memory then holds the batches in flight, not the
// dataset: a folder of photos larger than memory trains, and random_resized_crop crops the photo
// at its full size as torchvision's does.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "runner/data/image_decode.h"

namespace runner {

// The files of a per-epoch split that failed to decode while training (on_bad_file: skip), each
// once with why; the loader's workers add to it together.
class SkippedWhileTraining {
 public:
  void add(std::size_t index, const std::string& reason);
  std::vector<std::string> reasons() const;  // in file order

 private:
  mutable std::mutex mutex_;
  std::map<std::size_t, std::string> reasons_;
};

struct EncodedImages {
  std::filesystem::path root;
  std::vector<std::filesystem::path> files;  // relative to root, one per image of the split
  int channels = 3;
  std::int64_t max_image_bytes = kDefaultMaxImageBytes;
  DraftSize draft;  // dataset.jpeg_draft: what the first step (or the resize) needs at least
  // on_bad_file: skip. The listing sniffed every file, but one can still fail when its batch is
  // made (a truncated JPEG, a file replaced or deleted during the run).
  bool skip_bad_files = false;
  std::shared_ptr<SkippedWhileTraining> skipped = std::make_shared<SkippedWhileTraining>();

  // Image `index` at the size it was stored, converted to `channels`; a file that cannot be
  // read or decoded is a UserError naming it.
  Image decode(std::size_t index) const;

  // decode(index); with skip_bad_files, a file that fails is recorded in `skipped` and the next
  // file of the split that decodes (wrapping round) takes its place: the image and its index,
  // whose label goes with it. The batch keeps its size, and the same files fail the same way in
  // every worker and every rerun. A UserError when no file decodes.
  std::pair<Image, std::size_t> decode_or_next(std::size_t index) const;
};

struct Dataset;

// Decodes every image of `set` (its `encoded` files) into set.images, resized to its size, and
// drops `encoded`: a split that is evaluated each epoch (a validation split held out of one
// decoded per epoch).
void decode_in_memory(Dataset& set);

}  // namespace runner
