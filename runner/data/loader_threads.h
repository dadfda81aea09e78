// How many background threads the batch loader runs: dataset.workers when the config gives a
// number, else planned together with the compute threads so that neither waits for a core.
#pragma once

#include <optional>
#include <string>

namespace runner {

struct LoaderDemand {
  std::optional<int> configured;  // dataset.workers; empty: auto
  bool augments = false;          // work per image beyond a copy (dataset.augment)
  int cores = 1;                  // the cores the process may run on
  int compute_threads = 1;        // the training step's threads (training.threads, resolved)
};

// Why the loader runs the threads it does.
enum class LoaderReason {
  configured,    // dataset.workers gave the number
  copy_only,     // auto: a batch is a copy of images already in memory, quicker inline
  no_free_core,  // auto: augmenting, but the compute threads take every core
  free_cores,    // auto: augmenting on cores the compute threads leave free
};

struct LoaderWorkers {
  int count = 0;
  LoaderReason reason = LoaderReason::configured;
};

// The most threads auto plans: one augments a CIFAR-sized batch in microseconds, so more would
// only wait.
inline constexpr int kMaxAutoLoaderWorkers = 2;

// The rule (auto): 0 when there is nothing to do per batch but copy bytes; else the cores the
// compute threads leave free, at most kMaxAutoLoaderWorkers. A worker on a core the compute
// threads use preempts one of them, and every OpenMP barrier then waits for it.
LoaderWorkers plan_loader_workers(const LoaderDemand& demand);

// "0 loader workers (auto: a batch is a copy of images in memory)".
std::string loader_workers_text(const LoaderDemand& demand, const LoaderWorkers& workers);

}  // namespace runner
