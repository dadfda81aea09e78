// The training batches against the layers that normalise with batch statistics (LayerKind::
// batch_statistics).
#include "runner/graph/training_batches.h"

#include <fmt/format.h>

#include <algorithm>

#include "runner/graph/layer_kind.h"

namespace runner {
namespace {

// The smallest of an epoch's training batches: a short last one, else the full batch (or the
// whole training set when it is smaller than a batch).
std::int64_t smallest_batch(int batch_size, std::int64_t train_images) {
  const std::int64_t last = train_images % batch_size;
  return train_images > batch_size && last > 0 ? last
                                               : std::min<std::int64_t>(batch_size, train_images);
}

constexpr const char* kWhy =
    "batch statistics need more than one value per channel, as PyTorch's BatchNorm2d says "
    "(Expected more than 1 value per channel when training)";

// Which batch holds a single image, and what to change.
struct OneImageBatch {
  std::string batch, hint;
};

OneImageBatch one_image_batch(int batch_size, std::int64_t train_images) {
  if (train_images == 1) {
    return {"the training set holds 1 image",
            fmt::format("{}; train on more images (dataset.train_limit)", kWhy)};
  }
  if (batch_size == 1) {
    return {"training.batch_size 1 gives it batches of 1 image",
            fmt::format("{}; use a training.batch_size of 2 or more, or normalise before the "
                        "maps shrink to 1x1",
                        kWhy)};
  }
  return {fmt::format("the {} training images in batches of training.batch_size {} end with a "
                      "batch of 1 image",
                      train_images, batch_size),
          fmt::format("{}; choose a training.batch_size that leaves no last batch of one image "
                      "(one that does not divide {}), or change dataset.train_limit",
                      kWhy, train_images - 1)};
}

}  // namespace

void check_training_batches(const Graph& graph, int batch_size, std::int64_t train_images) {
  if (train_images <= 0 || batch_size <= 0) return;
  if (smallest_batch(batch_size, train_images) > 1) return;
  for (const Node& node : graph.nodes) {
    if (!find_layer_kind(node.type, node.where).batch_statistics) continue;
    const Shape input = graph.input_shapes(node)[0];
    if (std::int64_t{input.h} * input.w > 1) continue;
    const OneImageBatch why = one_image_batch(batch_size, train_images);
    throw_user_error(node.where,
                     fmt::format("{} ({}): {}, and its input {} then has 1 value per channel in "
                                 "training, expected more than 1",
                                 node.name, node.type, why.batch, input.str()),
                     why.hint);
  }
}

}  // namespace runner
