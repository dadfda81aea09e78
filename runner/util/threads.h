// How many threads the process computes with: the cores it may run on, and the training step's
// thread count resolved from the config and the environment.
#pragma once

namespace runner {

// The cores this process may run on: its CPU affinity mask (taskset, a container's cpuset),
// else the machine's cores; at least 1.
int available_cores();

// The training step's threads: `configured` (training.threads) when > 0, else OMP_NUM_THREADS,
// else available_cores().
int resolve_threads(int configured);

}  // namespace runner
