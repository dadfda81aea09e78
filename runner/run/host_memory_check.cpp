// The host-memory plan: dataset bytes from the config, decoding from dataset.max_image_bytes,
// model bytes from the graph's estimate.
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

constexpr std::int64_t kMaxBytes = std::numeric_limits<std::int64_t>::max();

double gib(std::int64_t bytes) {
  return static_cast<double>(bytes) / (1ll << 30);
}

std::int64_t saturated_sum(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? kMaxBytes : sum;
}

std::int64_t saturated_product(std::int64_t a, std::int64_t b) {
  std::int64_t product = 0;
  return __builtin_mul_overflow(a, b, &product) ? kMaxBytes : product;
}

// Images as uint8 plus their labels (a per-epoch training split: its labels).
std::int64_t dataset_bytes(const DatasetRecords& records, const Shape& image) {
  const std::int64_t held =
      records.train_per_epoch ? records.test : saturated_sum(records.train, records.test);
  return saturated_sum(saturated_product(held, image.elements() + 1),
                       records.train_per_epoch ? records.train * 4 : 0);
}

// The batch loader's ring; auto plans at most kMaxAutoLoaderWorkers threads.
std::int64_t loader_bytes(const Experiment& experiment, const Graph& graph) {
  const std::int64_t slots =
      BatchLoader::ring_slots(experiment.dataset.workers.value_or(kMaxAutoLoaderWorkers));
  return saturated_product(slots * experiment.training.batch_size, graph.input.elements() + 1);
}

// The plan's parts, from the records planned once (a CSV's are counted by reading it).
struct HostMemoryPlan {
  std::int64_t data = 0;              // the loaded splits
  std::int64_t decoding_workers = 0;  // image files: decoding before training, beside the data
  std::int64_t decoding = 0;
  std::int64_t training = 0;  // the loader's batches, and on the CPU the model
  std::int64_t total() const { return saturated_sum(data, std::max(decoding, training)); }
};

HostMemoryPlan plan_host_memory(const Experiment& experiment, const Graph& graph) {
  const DatasetRecords records = planned_dataset_records(experiment.dataset);  // limits applied
  HostMemoryPlan plan;
  plan.data = dataset_bytes(records, graph.input);
  plan.decoding_workers = planned_decoding_workers(experiment.dataset, records);
  plan.decoding = saturated_product(plan.decoding_workers, records.decoding_bytes);
  plan.training = loader_bytes(experiment, graph);
  if (records.train_per_epoch) {  // each loader worker decodes one image at a time
    const std::int64_t workers = experiment.dataset.workers.value_or(kMaxAutoLoaderWorkers);
    plan.training = saturated_sum(
        plan.training,
        saturated_product(std::max<std::int64_t>(workers, 1), records.decoding_bytes));
  }
  if (!experiment.device.is_cuda()) {  // auto may pick the CPU: plan for it
    const TrainingSpec& t = experiment.training;
    plan.training = saturated_sum(
        plan.training, estimate_training_memory(graph, t.batch_size, t.eval_batch_size, t.optimizer,
                                                t.precision, MemoryReuse::lifetimes)
                           .total());
  }
  return plan;
}

}  // namespace

std::int64_t planned_dataset_bytes(const DatasetSpec& dataset, const Shape& image) {
  return dataset_bytes(planned_dataset_records(dataset), image);
}

std::int64_t planned_host_bytes(const Experiment& experiment, const Graph& graph) {
  return plan_host_memory(experiment, graph).total();
}

void check_host_memory(const Experiment& experiment, const Graph& graph,
                       std::int64_t physical_bytes) {
  if (physical_bytes <= 0) return;  // unknown: nothing to compare with
  const HostMemoryPlan plan = plan_host_memory(experiment, graph);
  if (plan.total() <= physical_bytes) return;
  if (plan.decoding > plan.training) {
    throw UserError(fmt::format(
        "{}: the run needs about {:.1f} GiB of memory (dataset {:.1f} GiB, decoding images "
        "{:.1f} GiB: {} workers of up to dataset.max_image_bytes {} each), more than this "
        "machine's {:.1f} GiB (lower dataset.workers or dataset.max_image_bytes, or the number "
        "of images: dataset.train_limit, dataset.test_limit)",
        experiment.source_file, gib(plan.total()), gib(plan.data), gib(plan.decoding),
        plan.decoding_workers, experiment.dataset.files.max_image_bytes, gib(physical_bytes)));
  }
  throw UserError(
      fmt::format(
          "{}: the run needs about {:.1f} GiB of memory (dataset {:.1f} GiB, model and batches "
          "{:.1f} GiB), more than this machine's {:.1f} GiB",
          experiment.source_file, gib(plan.total()), gib(plan.data), gib(plan.training),
          gib(physical_bytes)) +
      " (lower training.batch_size, training.eval_batch_size, model.width or the number of "
      "images: dataset.train_limit, dataset.test_limit, dataset.synthetic)");
}

}  // namespace runner
