// Decoding one image of a per-epoch split.
#include "runner/data/encoded_images.h"

#include "runner/data/dataset.h"
#include "runner/data/image_resize.h"

namespace runner {

Image EncodedImages::decode(std::size_t index) const {
  return read_image(root / files.at(index), channels, max_image_bytes, draft);
}

void decode_in_memory(Dataset& set) {
  if (!set.encoded) return;
  const std::size_t bytes = set.image_bytes();
  set.images.assign(set.size() * bytes, 0);
  for (std::size_t i = 0; i < set.size(); ++i) {
    resize_image_into(set.encoded->decode(i), set.height, set.width,
                      {set.images.data() + i * bytes, bytes});
  }
  set.encoded.reset();
}

}  // namespace runner
