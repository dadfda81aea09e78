// Process CPU time, peak resident memory and physical memory from the OS.
#include "runner/util/process_stats.h"

#include <malloc.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>

namespace runner {

double process_cpu_seconds() {
  timespec now{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

CpuUse read_cpu_use() {
  CpuUse use;
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  use.wall_seconds = static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
  use.own_seconds = process_cpu_seconds();
  cpu_set_t mask;
  CPU_ZERO(&mask);
  const bool masked = ::sched_getaffinity(0, sizeof mask, &mask) == 0;
  const double tick = static_cast<double>(::sysconf(_SC_CLK_TCK));
  std::ifstream stat("/proc/stat");
  std::string line;
  while (std::getline(stat, line)) {
    // "cpuN user nice system idle iowait irq softirq steal ...", in clock ticks.
    int cpu = -1;
    unsigned long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, soft = 0,
                       steal = 0;
    if (std::sscanf(line.c_str(), "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &user,
                    &nice, &system, &idle, &iowait, &irq, &soft, &steal) < 8) {
      continue;  // the "cpu " total line, or another counter
    }
    if (cpu < 0 || (masked && (cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &mask)))) continue;
    use.busy_seconds += static_cast<double>(user + nice + system + irq + soft + steal) / tick;
    ++use.cpus;
  }
  if (tick <= 0) use.busy_seconds = 0;
  return use;
}

std::int64_t peak_rss_bytes() {
  // VmHWM follows reset_peak_rss(); getrusage's maximum never goes down.
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmHWM:") {
      std::int64_t kib = 0;
      status >> kib;
      return kib * 1024;
    }
    status.ignore(1 << 20, '\n');
  }
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::int64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

// gperftools' tcmalloc, where the binary links it (weak: the tests and fuzzers use glibc's malloc).
extern "C" void MallocExtension_ReleaseFreeMemory() __attribute__((weak));

void reset_peak_rss() {
  // Memory the allocator keeps after a free is resident: handed back first, so that a run's peak
  // is its own and not the previous run's (a sweep runs its points in one process; tcmalloc kept
  // a ResNet-18 point at batch 64 resident through the next point, at batch 2).
  if (MallocExtension_ReleaseFreeMemory) MallocExtension_ReleaseFreeMemory();
  ::malloc_trim(0);
  std::ofstream clear("/proc/self/clear_refs");
  if (clear) clear << "5";  // "5": reset the peak RSS (Linux 4.0 and later)
}

std::int64_t physical_memory_bytes() {
  return static_cast<std::int64_t>(::sysconf(_SC_PHYS_PAGES)) * ::sysconf(_SC_PAGE_SIZE);
}

double load_average() {
  double loads[1] = {0};
  return ::getloadavg(loads, 1) == 1 ? loads[0] : 0.0;
}

}  // namespace runner
