// How many threads the process computes with: the cores it may run on, and the training step's
// thread count resolved from the config and the environment.
#pragma once

namespace runner {

// The most compute threads a run may have (training.threads' schema maximum).
inline constexpr int kMaxComputeThreads = 4096;

// The cores this process may run on: its CPU affinity mask (taskset, a container's cpuset),
// else the machine's cores; at least 1.
int available_cores();

// The training step's threads: `configured` (training.threads) when > 0, else OMP_NUM_THREADS,
// else available_cores(). An OMP_NUM_THREADS above kMaxComputeThreads is a UserError naming the
// variable (oneDNN crashed on 100,000).
int resolve_threads(int configured);

// Whether the count is the machine's default (neither training.threads nor OMP_NUM_THREADS
// set it): a run may then fit its threads to the cores the machine gives it.
bool threads_are_the_default(int configured);

// Starts and joins `threads` - 1 threads with the default stack, as the OpenMP team will: where
// the process cannot have that many (a memory limit, a thread limit), a UserError naming where
// the count came from, instead of libgomp ending the process with "Thread creation failed".
void check_threads_can_start(int threads, int configured);

}  // namespace runner
