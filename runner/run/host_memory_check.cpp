// The host-memory plan: dataset bytes from the config, model bytes from the graph's estimate.
#include "runner/run/host_memory_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "runner/data/batch_loader.h"
#include "runner/data/dataset_size.h"
#include "runner/data/loader_threads.h"
#include "runner/graph/memory_estimate.h"

namespace runner {
namespace {

double gib(std::int64_t bytes) {
  return static_cast<double>(bytes) / (1ll << 30);
}

}  // namespace

std::int64_t planned_dataset_bytes(const DatasetSpec& dataset, const Shape& image) {
  const DatasetRecords counts = planned_dataset_records(dataset);  // limits applied
  std::int64_t records = 0;
  if (__builtin_add_overflow(counts.train, counts.test, &records)) {
    return std::numeric_limits<std::int64_t>::max();
  }
  std::int64_t bytes = 0;
  if (__builtin_mul_overflow(records, image.elements() + 1, &bytes)) {
    return std::numeric_limits<std::int64_t>::max();
  }
  return bytes;
}

namespace {

// The batch loader's ring; auto plans at most kMaxAutoLoaderWorkers threads.
std::int64_t loader_bytes(const Experiment& experiment, const Graph& graph) {
  const std::int64_t slots =
      BatchLoader::ring_slots(experiment.dataset.workers.value_or(kMaxAutoLoaderWorkers));
  std::int64_t bytes = 0;
  if (__builtin_mul_overflow(slots * experiment.training.batch_size, graph.input.elements() + 1,
                             &bytes)) {
    return std::numeric_limits<std::int64_t>::max();
  }
  return bytes;
}

}  // namespace

std::int64_t planned_host_bytes(const Experiment& experiment, const Graph& graph) {
  std::int64_t bytes = planned_dataset_bytes(experiment.dataset, graph.input);
  if (__builtin_add_overflow(bytes, loader_bytes(experiment, graph), &bytes)) {
    return std::numeric_limits<std::int64_t>::max();
  }
  if (!experiment.device.is_cuda()) {  // auto may pick the CPU: plan for it
    const TrainingSpec& t = experiment.training;
    std::int64_t model =
        estimate_training_memory(graph, t.batch_size, t.eval_batch_size, t.optimizer, t.precision)
            .total();
    if (__builtin_add_overflow(bytes, model, &bytes))
      bytes = std::numeric_limits<std::int64_t>::max();
  }
  return bytes;
}

void check_host_memory(const Experiment& experiment, const Graph& graph,
                       std::int64_t physical_bytes) {
  if (physical_bytes <= 0) return;  // unknown: nothing to compare with
  std::int64_t needed = planned_host_bytes(experiment, graph);
  if (needed <= physical_bytes) return;
  std::int64_t data = planned_dataset_bytes(experiment.dataset, graph.input);
  throw UserError(
      fmt::format(
          "{}: the run needs about {:.1f} GiB of memory (dataset {:.1f} GiB, model and batches "
          "{:.1f} GiB), more than this machine's {:.1f} GiB",
          experiment.source_file, gib(needed), gib(data), gib(needed - data), gib(physical_bytes)) +
      " (lower training.batch_size, training.eval_batch_size, model.width or the number of "
      "images: dataset.train_limit, dataset.test_limit, dataset.synthetic)");
}

}  // namespace runner
