// How busy the machine was around a run (other processes compete for its cores, so timings are
// noisy): recorded in every report as `machine_load`, and said once when it is busy.
#pragma once

#include <string>

#include "runner/report/run_record.h"

namespace runner {

// Taken when a run starts; `record()` then reads the load again.
class MachineLoad {
 public:
  MachineLoad();
  // {"cores": C, "load_average_start": x, "load_average_end": y} (1-minute load averages)
  RecordMachineLoad record() const;
  double start() const { return start_; }
  int cores() const { return cores_; }

 private:
  int cores_;
  double start_;
};

// The machine counts as busy when its 1-minute load average is above its cores: more runnable
// threads than cores, so OpenMP threads wait for descheduled ones and steps slow down.
bool machine_is_busy(double load_average, int cores);

// "warning: the machine is busy (load average 6.1 on 2 cores): ...", or "" when it is not.
std::string busy_warning(double load_average, int cores);

// The key under which Console::warning_once shows it, so that a sweep says it once.
inline constexpr const char* kBusyWarningKey = "machine is busy";

}  // namespace runner
