// Field path parsing and formatting.
#include "runner/config/field_path.h"

#include <charconv>

namespace runner {

std::string child_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string item_path(const std::string& parent, std::size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

std::string format_path(const FieldPath& path) {
  std::string out;
  for (const auto& segment : path) {
    out = segment.index ? item_path(out, *segment.index) : child_path(out, segment.key);
  }
  return out;
}

std::optional<FieldPath> parse_path(const std::string& text) {
  FieldPath path;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '[') {
      std::size_t close = text.find(']', i);
      if (close == std::string::npos || close == i + 1) return std::nullopt;
      std::size_t index = 0;
      auto [end, error] = std::from_chars(text.data() + i + 1, text.data() + close, index);
      if (error != std::errc() || end != text.data() + close) return std::nullopt;
      path.push_back({"", index});
      i = close + 1;
      if (i < text.size() && text[i] == '.') {
        ++i;
        if (i == text.size()) return std::nullopt;  // trailing dot
      }
      continue;
    }
    std::size_t end = text.find_first_of(".[", i);
    if (end == std::string::npos) end = text.size();
    if (end == i) return std::nullopt;  // empty key, as in "a..b" or ".a"
    path.push_back({text.substr(i, end - i), std::nullopt});
    i = end;
    if (i < text.size() && text[i] == '.') {
      ++i;
      if (i == text.size()) return std::nullopt;
    }
  }
  if (path.empty()) return std::nullopt;
  return path;
}

std::string parent_path(const std::string& path) {
  if (path.empty()) return "";
  if (path.back() == ']') {
    std::size_t open = path.rfind('[');
    return open == std::string::npos ? "" : path.substr(0, open);
  }
  std::size_t cut = path.find_last_of(".[");
  if (cut == std::string::npos) return "";
  if (path[cut] == '[') return path.substr(0, path.find(']', cut) + 1);
  return path.substr(0, cut);
}

}  // namespace runner
