// Source map lookups: a field's own origin or its nearest recorded ancestor's.
#include "runner/config/source_map.h"

#include "runner/config/field_path.h"

namespace runner {

void SourceMap::replace_subtree(const std::string& path, const SourceOrigin& origin) {
  for (auto it = origins_.begin(); it != origins_.end();) {
    const std::string& key = it->first;
    bool below =
        path.empty() || (key.size() > path.size() && key.compare(0, path.size(), path) == 0 &&
                         (key[path.size()] == '.' || key[path.size()] == '['));
    it = below ? origins_.erase(it) : std::next(it);
  }
  origins_[path] = origin;
}

const SourceOrigin* SourceMap::find(const std::string& path) const {
  auto it = origins_.find(path);
  return it == origins_.end() ? nullptr : &it->second;
}

SourceLocation SourceMap::locate(const std::string& path, bool at_key) const {
  SourceLocation where{file_, path, 0, 0};
  std::string probe = path;
  while (true) {
    if (const SourceOrigin* origin = find(probe)) {
      if (!origin->override_text.empty()) {
        where.file = origin->override_text;
      } else if (at_key && probe == path && origin->key_line > 0) {
        where.line = origin->key_line;
        where.column = origin->key_column;
      } else {
        where.line = origin->line;
        where.column = origin->column;
      }
      return where;
    }
    if (probe.empty()) return where;
    probe = parent_path(probe);
  }
}

}  // namespace runner
