// Typing one plain YAML scalar by the YAML 1.2 core schema, with loops over the characters
// rather than std::regex: libstdc++'s regex recurses once per character and a long scalar (a
// 100,000-digit seed) overflowed the stack.
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string_view>

#include "runner/config/yaml_to_json.h"

namespace runner {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_octal_digit(char c) {
  return c >= '0' && c <= '7';
}
bool is_hex_digit(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool one_of(std::string_view text, std::initializer_list<std::string_view> options) {
  for (auto option : options) {
    if (text == option) return true;
  }
  return false;
}

std::string_view without_sign(std::string_view text) {
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) text.remove_prefix(1);
  return text;
}

// Consumes a run of characters matching `accept`; returns how many.
template <typename Accept>
std::size_t take_while(std::string_view& text, Accept accept) {
  std::size_t n = 0;
  while (n < text.size() && accept(text[n])) ++n;
  text.remove_prefix(n);
  return n;
}

// [-+]?[0-9]+
bool is_decimal_integer(std::string_view text) {
  text = without_sign(text);
  return !text.empty() && take_while(text, is_digit) > 0 && text.empty();
}

// `prefix` then one or more digits of a base, e.g. 0o17, 0x1F.
template <typename Accept>
bool is_prefixed_integer(std::string_view text, std::string_view prefix, Accept accept) {
  if (text.substr(0, prefix.size()) != prefix) return false;
  text.remove_prefix(prefix.size());
  return take_while(text, accept) > 0 && text.empty();
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool is_decimal_float(std::string_view text) {
  text = without_sign(text);
  std::size_t whole = take_while(text, is_digit);
  if (!text.empty() && text[0] == '.') {
    text.remove_prefix(1);
    std::size_t fraction = take_while(text, is_digit);
    if (whole == 0 && fraction == 0) return false;
  } else if (whole == 0) {
    return false;
  }
  if (!text.empty() && (text[0] == 'e' || text[0] == 'E')) {
    text.remove_prefix(1);
    text = without_sign(text);
    if (take_while(text, is_digit) == 0) return false;
  }
  return text.empty();
}

std::optional<nlohmann::json> parse_integer(std::string_view text, int base, std::size_t skip) {
  const char* first = text.data() + skip;
  const char* last = text.data() + text.size();
  bool negative = false;
  if (first < last && (*first == '-' || *first == '+')) negative = *first++ == '-';
  std::uint64_t magnitude = 0;
  auto [end, error] = std::from_chars(first, last, magnitude, base);
  if (end != last) return std::nullopt;
  if (error == std::errc::result_out_of_range) return std::nullopt;  // caller falls back to float
  constexpr auto int64_max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (!negative) {
    if (magnitude <= int64_max) return nlohmann::json(static_cast<std::int64_t>(magnitude));
    return nlohmann::json(magnitude);
  }
  if (magnitude <= int64_max + 1) return nlohmann::json(static_cast<std::int64_t>(0 - magnitude));
  return std::nullopt;
}

}  // namespace

nlohmann::json plain_scalar_to_json(const std::string& text) {
  constexpr double infinity = std::numeric_limits<double>::infinity();
  if (one_of(text, {"~", "null", "Null", "NULL", ""})) return nullptr;
  if (one_of(text, {"true", "True", "TRUE"})) return true;
  if (one_of(text, {"false", "False", "FALSE"})) return false;
  if (is_decimal_integer(text)) {
    if (auto value = parse_integer(text, 10, 0)) return *value;
    // Beyond 64 bits: its magnitude as a float (infinite when beyond a double, which the
    // config reader refuses with the field's location).
    return std::strtod(text.c_str(), nullptr);
  }
  if (is_prefixed_integer(text, "0o", is_octal_digit)) {
    if (auto value = parse_integer(text, 8, 2)) return *value;
    return infinity;  // an octal or hex literal beyond 64 bits: out of range
  }
  if (is_prefixed_integer(text, "0x", is_hex_digit)) {
    if (auto value = parse_integer(text, 16, 2)) return *value;
    return infinity;
  }
  if (is_decimal_float(text)) return std::strtod(text.c_str(), nullptr);
  std::string_view unsigned_text = without_sign(text);
  if (one_of(unsigned_text, {".inf", ".Inf", ".INF"})) return text[0] == '-' ? -infinity : infinity;
  if (one_of(text, {".nan", ".NaN", ".NAN"})) return std::numeric_limits<double>::quiet_NaN();
  return text;
}

}  // namespace runner
