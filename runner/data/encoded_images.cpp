// Decoding one image of a per-epoch split.
#include "runner/data/encoded_images.h"

#include <fmt/format.h>

#include "runner/data/dataset.h"
#include "runner/data/image_resize.h"
#include "runner/util/errors.h"

namespace runner {

void SkippedWhileTraining::add(std::size_t index, const std::string& reason) {
  std::lock_guard<std::mutex> lock(mutex_);
  reasons_.emplace(index, reason);
}

std::vector<std::string> SkippedWhileTraining::reasons() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> out;
  for (const auto& [index, reason] : reasons_) out.push_back(reason);
  return out;
}

Image EncodedImages::decode(std::size_t index) const {
  return read_image(root / files.at(index), channels, max_image_bytes, draft);
}

std::pair<Image, std::size_t> EncodedImages::decode_or_next(std::size_t index) const {
  if (!skip_bad_files) return {decode(index), index};
  for (std::size_t tried = 0; tried < files.size(); ++tried) {
    const std::size_t at = (index + tried) % files.size();
    try {
      return {decode(at), at};
    } catch (const ImageOutOfMemory&) {
      throw;  // not the file's fault: the machine's memory
    } catch (const UserError& e) {
      skipped->add(at, e.what());
    }
  }
  throw UserError(
      fmt::format("{}: no file of the training split decodes any more (on_bad_file: "
                  "skip left each out)",
                  root.string()));
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
