// The host-memory plan of a run, checked before anything is loaded: a config whose data and
// model cannot fit in this machine's memory is refused at `validate`, not killed by the kernel.
#pragma once

#include <cstdint>

#include "runner/config/experiment.h"
#include "runner/graph/graph.h"

namespace runner {

// Bytes the dataset will take in host memory (images as uint8 plus labels), from the config
// alone: the known sizes of CIFAR-10 and (Fashion-)MNIST, the synthetic counts, the limits.
std::int64_t planned_dataset_bytes(const DatasetSpec& dataset, const Shape& image);

// Host bytes a run needs: the dataset, and beside it the larger of what decoding its image files
// holds (dataset.max_image_bytes per decoding worker) and what training holds (the loader's
// batches, on the CPU the model's training memory too).
std::int64_t planned_host_bytes(const Experiment& experiment, const Graph& graph);

// A UserError naming the parts when the plan exceeds `physical_bytes` (the machine's memory).
void check_host_memory(const Experiment& experiment, const Graph& graph,
                       std::int64_t physical_bytes);

}  // namespace runner
