// Cores and compute threads, from the affinity mask and the environment.
#include "runner/util/threads.h"

#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

namespace runner {

int available_cores() {
  // Under taskset or a cpuset the machine's core count overstates what the process may use, and
  // that many compute threads would share fewer cores (libgomp counts the mask too).
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (::sched_getaffinity(0, sizeof mask, &mask) == 0) return std::max(1, CPU_COUNT(&mask));
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

int resolve_threads(int configured) {
  if (configured > 0) return configured;
  if (const char* env = std::getenv("OMP_NUM_THREADS")) {
    int n = std::atoi(env);
    if (n > 0) return n;
  }
  return available_cores();
}

}  // namespace runner
