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

// The 1-minute load average (runnable threads, whoever runs them); 0 when unknown.
double load_average();

}  // namespace runner
