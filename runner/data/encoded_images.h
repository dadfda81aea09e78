// A training split decoded as its batches are made (dataset.decode: per_epoch): the files and how
// to decode them, instead of their pixels. Memory then holds the batches in flight, not the
// dataset: a folder of photos larger than memory trains, and random_resized_crop crops the photo
// at its full size as torchvision's does.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "runner/data/image_decode.h"

namespace runner {

struct EncodedImages {
  std::filesystem::path root;
  std::vector<std::filesystem::path> files;  // relative to root, one per image of the split
  int channels = 3;
  std::int64_t max_image_bytes = kDefaultMaxImageBytes;
  DraftSize draft;  // dataset.jpeg_draft: what the first step (or the resize) needs at least

  // Image `index` at the size it was stored, converted to `channels`; a file that cannot be
  // read or decoded is a UserError naming it.
  Image decode(std::size_t index) const;
};

struct Dataset;

// Decodes every image of `set` (its `encoded` files) into set.images, resized to its size, and
// drops `encoded`: a split that is evaluated each epoch (a validation split held out of one
// decoded per epoch).
void decode_in_memory(Dataset& set);

}  // namespace runner
