// An enum's names as a table of (value, name) pairs, looked up both ways: the one place a
// config's spelling of an enum lives is its table.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

namespace runner {

template <typename Enum, std::size_t N>
using EnumNames = std::array<std::pair<Enum, std::string_view>, N>;

// `value`'s name, or "?" for a value the table lacks.
template <typename Enum, std::size_t N>
constexpr std::string_view name_in(const EnumNames<Enum, N>& names, Enum value) {
  for (const auto& [known, name] : names) {
    if (known == value) return name;
  }
  return "?";
}

// The value `name` stands for; nullopt for a name the table lacks.
template <typename Enum, std::size_t N>
constexpr std::optional<Enum> value_named(const EnumNames<Enum, N>& names, std::string_view name) {
  for (const auto& [value, known] : names) {
    if (known == name) return value;
  }
  return std::nullopt;
}

}  // namespace runner
