// The parts of a run's page, each from the record alone; a part whose figures the record does
// not hold is "" (left out of the page).
#pragma once

#include <string>

#include "runner/report/run_record.h"

namespace runner {

std::string curves_section(const RunRecord& record);       // loss and learning rate
std::string epochs_section(const RunRecord& record);       // per-epoch figures
std::string classes_section(const RunRecord& record);      // per class, confusion
std::string performance_section(const RunRecord& record);  // throughput, memory
std::string profile_section(const RunRecord& record);      // bench --profile-steps
std::string layers_section(const RunRecord& record);       // the model's layers

}  // namespace runner
