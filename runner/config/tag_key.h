// The keys that `tags:` in a config and `--tag KEY=VALUE` accept.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>

namespace runner {

inline constexpr const char* kTagKeyRule = "a key of 1 to 64 letters, digits, '_', '.' or '-'";

inline bool is_tag_key(const std::string& key) {
  return !key.empty() && key.size() <= 64 && std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
  });
}

}  // namespace runner
