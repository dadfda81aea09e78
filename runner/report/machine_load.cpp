// The load average from /proc/loadavg (process_stats.h) and the cores this process may see.
#include "runner/report/machine_load.h"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "runner/util/process_stats.h"

namespace runner {

MachineLoad::MachineLoad()
    : cores_(static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))),
      start_(load_average()) {}

RecordMachineLoad MachineLoad::record() const {
  return {cores_, start_, load_average(), {}};
}

bool machine_is_busy(double load_average, int cores) {
  return load_average > cores;
}

std::string busy_warning(double load_average, int cores) {
  if (!machine_is_busy(load_average, cores)) return "";
  return fmt::format(
      "warning: the machine is busy (load average {:.1f} on {} cores): timings will be noisy, and "
      "OpenMP threads waiting for a descheduled one can make steps many times slower",
      load_average, cores);
}

}  // namespace runner
