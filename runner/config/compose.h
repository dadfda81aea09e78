// Configs that include others: `defaults:` / `include:` lists of YAML files merged under a file.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>

#include "runner/config/source_map.h"

namespace runner {

// Reads the YAML `file` and the files its top-level `defaults:` and `include:` name (a path or
// a list of paths, relative to the including file), themselves composed the same way: the
// listed files are merged first, in order, then the file itself. Mappings merge key by key;
// lists and scalars are replaced; a mapping tagged `!replace` replaces the one before it. Every
// field keeps the file, line and column it came from in `source_map`. Missing files, cycles,
// includes that are not mappings and nesting deeper than kMaxIncludeDepth are UserErrors
// naming the including file and field.
nlohmann::json compose_config(const std::filesystem::path& file, SourceMap& source_map);

inline constexpr int kMaxIncludeDepth = 16;

// Merges `src` (with its origins in `src_map`) over `dst` at the top level, as above.
void merge_config(nlohmann::json& dst, SourceMap& dst_map, const nlohmann::json& src,
                  const SourceMap& src_map);

}  // namespace runner
