// Bounds on what a config or sweep file may hold, checked while it is read: far above any real
// experiment, low enough that no input makes the runner allocate without bound or recurse deep.
#pragma once

#include <cstddef>

namespace runner::limits {

inline constexpr std::size_t max_config_bytes = 1 << 20;  // 1 MiB of YAML
inline constexpr std::size_t max_values = 100'000;        // after aliases are expanded
inline constexpr int max_depth = 32;                      // nesting of mappings and lists
inline constexpr std::size_t max_string_length = 4096;    // a path, a URL, a name
inline constexpr std::size_t max_key_length = 256;
inline constexpr std::size_t max_reference_chain = 256;  // ${a} -> ${b} -> ... links

}  // namespace runner::limits
