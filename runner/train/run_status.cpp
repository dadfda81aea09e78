// Run status names.
#include "runner/train/run_status.h"

#include <array>
#include <utility>

#include "runner/util/enum_names.h"

namespace runner {
namespace {

constexpr std::array<std::pair<RunStatus, const char*>, 8> kNames = {{
    {RunStatus::completed, "completed"},
    {RunStatus::diverged, "diverged"},
    {RunStatus::interrupted, "interrupted"},
    {RunStatus::stopped_early, "stopped_early"},
    {RunStatus::failed, "failed"},
    {RunStatus::out_of_memory, "out_of_memory"},
    {RunStatus::invalid, "invalid"},
    {RunStatus::running, "running"},
}};
static_assert(kNames.size() == static_cast<std::size_t>(RunStatus::running) + 1,
              "every RunStatus has a name");

constexpr EnumNames<StopReason, 5> kStopReasonNames = {
    {{StopReason::epochs, "epochs"},
     {StopReason::early_stopping, "early_stopping"},
     {StopReason::interrupted, "interrupted"},
     {StopReason::diverged, "diverged"},
     {StopReason::asha, "asha"}}};

constexpr EnumNames<RunMode, 3> kModeNames = {
    {{RunMode::train, "train"}, {RunMode::benchmark, "benchmark"}, {RunMode::eval, "eval"}}};

}  // namespace

const char* status_name(RunStatus status) {
  return kNames[static_cast<std::size_t>(status)].second;
}

std::optional<RunStatus> parse_run_status(std::string_view name) {
  for (const auto& [status, text] : kNames) {
    if (name == text) return status;
  }
  return std::nullopt;
}

std::string known_status_names() {
  std::string out;
  for (const auto& entry : kNames) {
    if (!out.empty()) out += ", ";
    out += entry.second;
  }
  return out;
}

bool ended_as_planned(RunStatus status) {
  return status == RunStatus::completed || status == RunStatus::stopped_early;
}

ReportedStatus ReportedStatus::parse(std::string_view text) {
  auto status = parse_run_status(text);
  return status ? of(*status) : unreadable();
}

bool ReportedStatus::ended_as_planned() const {
  return kind == Kind::read && runner::ended_as_planned(status);
}

std::string ReportedStatus::text() const {
  switch (kind) {
    case Kind::none:
      return "";
    case Kind::unreadable:
      return "unreadable";
    case Kind::read:
      return status_name(status);
  }
  return "";
}

const char* mode_name(RunMode mode) {
  return name_in(kModeNames, mode).data();  // the table's literals end in '\0'
}

std::optional<RunMode> parse_run_mode(std::string_view name) {
  return value_named(kModeNames, name);
}

const char* stop_reason_name(StopReason reason) {
  return name_in(kStopReasonNames, reason).data();
}

std::optional<StopReason> parse_stop_reason(std::string_view name) {
  return value_named(kStopReasonNames, name);
}

int exit_code_for(RunStatus status) {
  if (ended_as_planned(status)) return 0;
  return status == RunStatus::interrupted ? 130 : 1;
}

}  // namespace runner
