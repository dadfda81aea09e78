// Schedule type names.
#include "runner/config/schedule_spec.h"

#include <array>
#include <utility>

namespace runner {
namespace {

constexpr std::array<std::pair<ScheduleType, const char*>, 5> kNames = {{
    {ScheduleType::constant, "constant"},
    {ScheduleType::step, "step"},
    {ScheduleType::multistep, "multistep"},
    {ScheduleType::cosine, "cosine"},
    {ScheduleType::one_cycle, "one_cycle"},
}};
static_assert(kNames.size() == static_cast<std::size_t>(ScheduleType::one_cycle) + 1,
              "every ScheduleType has a name");

}  // namespace

const char* schedule_type_name(ScheduleType type) {
  return kNames[static_cast<std::size_t>(type)].second;
}

std::optional<ScheduleType> parse_schedule_type(std::string_view name) {
  for (const auto& [type, text] : kNames) {
    if (name == text) return type;
  }
  return std::nullopt;
}

}  // namespace runner
