// The loader's thread plan (see loader_threads.h for the rule).
#include "runner/data/loader_threads.h"

#include <fmt/format.h>

#include <algorithm>

namespace runner {

LoaderWorkers plan_loader_workers(const LoaderDemand& demand) {
  if (demand.configured) return {*demand.configured, LoaderReason::configured};
  if (!demand.augments) return {0, LoaderReason::copy_only};
  const int free_cores = demand.cores - demand.compute_threads;
  if (free_cores <= 0) return {0, LoaderReason::no_free_core};
  return {std::min(free_cores, kMaxAutoLoaderWorkers), LoaderReason::free_cores};
}

std::string loader_workers_text(const LoaderDemand& demand, const LoaderWorkers& workers) {
  const std::string count =
      fmt::format("{} loader worker{}", workers.count, workers.count == 1 ? "" : "s");
  switch (workers.reason) {
    case LoaderReason::configured:
      return fmt::format("{} (dataset.workers)", count);
    case LoaderReason::copy_only:
      return fmt::format("{} (auto: a batch is a copy of images in memory, made inline)", count);
    case LoaderReason::no_free_core:
      return fmt::format("{} (auto: augmenting inline, {} compute threads on {} cores)", count,
                         demand.compute_threads, demand.cores);
    case LoaderReason::free_cores:
      return fmt::format("{} (auto: augmenting on cores left by {} compute threads of {})", count,
                         demand.compute_threads, demand.cores);
  }
  return count;
}

}  // namespace runner
