// Batch statistics need more than one value per channel: a batch norm trained on a batch that
// gives it one (a batch of one image on 1x1 maps) is refused before anything runs, as PyTorch's
// BatchNorm2d refuses it ("Expected more than 1 value per channel when training").
#pragma once

#include <cstdint>

#include "runner/graph/graph.h"

namespace runner {

// The training batches of `train_images` images in batches of `batch_size`: full batches and,
// when the count is not a multiple, a short last one. A UserError naming the batch norm layer,
// its input and training.batch_size when one of these batches gives it a single value per
// channel. No images: nothing to check (an empty split is refused elsewhere).
void check_training_batches(const Graph& graph, int batch_size, std::int64_t train_images);

}  // namespace runner
