// The parts of a run's page, each from the report alone; a part whose figures the report does
// not hold is "" (left out of the page).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace runner {

std::string curves_section(const nlohmann::json& report);       // loss and learning rate
std::string epochs_section(const nlohmann::json& report);       // per-epoch figures
std::string classes_section(const nlohmann::json& report);      // per class, confusion
std::string performance_section(const nlohmann::json& report);  // throughput, memory
std::string profile_section(const nlohmann::json& report);      // bench --profile-steps
std::string layers_section(const nlohmann::json& report);       // the model's layers

}  // namespace runner
