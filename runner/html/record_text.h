// A run record's fields as the run page writes them. A field the report lacks is "" (facts_list
// leaves such a line out), and a section it lacks reads as an empty one, so the page's parts ask
// for fields without first asking for their section.
#pragma once

#include <cmath>
#include <concepts>
#include <optional>
#include <string>

#include "runner/report/run_record.h"
#include "runner/util/figure_text.h"

namespace runner {

// The section, or one with every field absent.
template <class Section>
const Section& or_empty(const std::optional<Section>& section) {
  static const Section empty{};
  return section ? *section : empty;
}

// The report's names of its enums.
inline std::string name_of(RunStatus status) {
  return status_name(status);
}
inline std::string name_of(RunMode mode) {
  return mode_name(mode);
}
inline std::string name_of(StopReason reason) {
  return stop_reason_name(reason);
}
inline std::string name_of(Precision precision) {
  return std::string(precision_name(precision));
}
inline std::string name_of(Monitor monitor) {
  return std::string(monitor_name(monitor));
}
inline std::string name_of(const Device& device) {
  return device.name();
}

inline std::string text_of(const std::optional<std::string>& text) {
  return text.value_or("");
}

// An integer in digits, as the report writes it.
template <std::integral Int>
std::string text_of(const std::optional<Int>& number) {
  return number ? std::to_string(*number) : "";
}

// An enum by the name the report gives it.
template <class Named>
requires(!std::integral<Named>) && requires(const Named& value) {
  name_of(value);
}
std::string text_of(const std::optional<Named>& value) {
  return value ? name_of(*value) : "";
}

// The figure as people read it (figure_text), or "" when the record lacks it.
template <class Number>
std::string figure_of(const std::optional<Number>& value, const std::string& unit) {
  const double v = value_or_nan(value);
  return std::isfinite(v) ? figure_text(v, unit) : "";
}

}  // namespace runner
