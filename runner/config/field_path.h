// Field paths into a config ("model.layers[3].kernel"): parsing, formatting and joining.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace runner {

// One step of a field path: an object key, or an array index when `index` is set.
struct PathSegment {
  std::string key;
  std::optional<std::size_t> index;
};
using FieldPath = std::vector<PathSegment>;

// "model.layers[3].kernel" from its segments ("" for the top level).
std::string format_path(const FieldPath& path);

// The segments of "model.layers[3].kernel"; nullopt when the text is not a well-formed path.
std::optional<FieldPath> parse_path(const std::string& text);

// "parent.key" (or "key" at the top level) and "parent[index]".
std::string child_path(const std::string& parent, const std::string& key);
std::string item_path(const std::string& parent, std::size_t index);

// The path one step up ("model.layers[3]" for "model.layers[3].kernel"); "" at the top level.
std::string parent_path(const std::string& path);

}  // namespace runner
