// Record counts from the spec's format, with the limits every format shares.
#include "runner/data/dataset_size.h"

#include <algorithm>
#include <limits>

#include "runner/data/dataset_format.h"
#include "runner/util/process_stats.h"
#include "runner/util/threads.h"

namespace runner {
namespace {

std::int64_t limited(std::int64_t count, std::int64_t limit) {
  return limit > 0 ? std::min(count, limit) : count;
}

}  // namespace

std::int64_t DatasetRecords::bytes() const {
  constexpr std::int64_t label = sizeof(std::int32_t);
  // A training split decoded per epoch holds its labels only.
  std::int64_t held = test, out = 0;
  if ((!train_per_epoch && __builtin_add_overflow(train, test, &held)) ||
      __builtin_mul_overflow(held, image_bytes + label, &out) ||
      __builtin_add_overflow(out, train_per_epoch ? train * label : 0, &out)) {
    return std::numeric_limits<std::int64_t>::max();
  }
  return out;
}

DatasetRecords planned_dataset_records(const DatasetSpec& spec) {
  DatasetRecords records = format_of(spec).planned_records(spec);
  records.train = limited(records.train, spec.train_limit);
  records.test = limited(records.test, spec.test_limit);
  return records;
}

int image_decoding_workers(const DatasetSpec& spec) {
  if (spec.workers) return std::max(*spec.workers, 1);
  const std::int64_t memory = physical_memory_bytes();
  const std::int64_t per_worker = std::max<std::int64_t>(spec.files.max_image_bytes, 1);
  const std::int64_t fit = memory > 0 ? memory / 4 / per_worker : available_cores();
  return static_cast<int>(std::clamp<std::int64_t>(fit, 1, available_cores()));
}

std::int64_t planned_decoding_workers(const DatasetSpec& spec, const DatasetRecords& records) {
  const std::int64_t images = std::max<std::int64_t>({records.train, records.test, 1});
  return std::min<std::int64_t>(image_decoding_workers(spec), images);
}

}  // namespace runner
