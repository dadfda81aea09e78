// What the process uses: CPU time, peak resident memory (resettable, so in-process sweep points
// each get their own peak) and the machine's physical memory.
#pragma once

#include <cstdint>

namespace runner {

// CPU time of all the process's threads so far, in seconds.
double process_cpu_seconds();

// The peak resident memory since the process started or since the last reset_peak_rss().
std::int64_t peak_rss_bytes();
// Starts a new peak (Linux /proc/self/clear_refs); a no-op where the kernel does not allow it.
void reset_peak_rss();

// The machine's physical memory in bytes (what a CPU point must fit in).
std::int64_t physical_memory_bytes();

// Cumulative CPU time of the CPUs this process may run on (its affinity mask), as /proc/stat
// counts it: what every process used of them, and what this one did. Two readings apart tell how
// many cores the others took meanwhile.
struct CpuUse {
  double wall_seconds = 0;  // a steady clock
  double busy_seconds = 0;  // every process, summed over the CPUs (not idle, not waiting)
  double own_seconds = 0;   // this process's threads
  int cpus = 0;             // in the affinity mask
};
// A zero busy_seconds where /proc/stat cannot be read (the others then look idle).
CpuUse read_cpu_use();

// The 1-minute load average (runnable threads, whoever runs them); 0 when unknown.
double load_average();

}  // namespace runner
