// Parsing JSON that the runner reads from files (reports, summaries, checkpoint metadata) with a
// bound on nesting: nlohmann's dump and copies recurse once per level, so a file of 100,000
// nested objects overflowed the stack. The files the runner writes nest a few levels.
#pragma once

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

namespace runner {

inline constexpr int kMaxJsonDepth = 64;

struct JsonTooDeep : std::runtime_error {
  JsonTooDeep() : std::runtime_error("the JSON nests deeper than 64 levels") {}
};

// As nlohmann::json::parse(input, nullptr, allow_exceptions), but nesting past kMaxJsonDepth
// throws JsonTooDeep (gives a discarded value when !allow_exceptions) before it is built.
template <typename Input>
nlohmann::json parse_bounded_json(Input&& input, bool allow_exceptions = true) {
  auto bound = [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    if (depth > kMaxJsonDepth) throw JsonTooDeep();
    return true;
  };
  try {
    return nlohmann::json::parse(std::forward<Input>(input), bound, allow_exceptions);
  } catch (const JsonTooDeep&) {
    if (allow_exceptions) throw;
    return nlohmann::json(nlohmann::json::value_t::discarded);
  }
}

// The JSON in `path`, read leniently (a report or plan that may be missing, damaged or forged):
// null when the file cannot be opened, is not JSON or nests too deep.
inline nlohmann::json read_json_leniently(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return nullptr;
  nlohmann::json parsed = parse_bounded_json(in, /*allow_exceptions=*/false);
  return parsed.is_discarded() ? nlohmann::json() : parsed;
}

}  // namespace runner
