// Source map lookups: a field's own origin or its nearest recorded ancestor's.
#include "runner/config/source_map.h"

#include "runner/config/field_path.h"

namespace runner {

namespace {

// Whether `key` is `path` or a field below it.
bool at_or_below(const std::string& key, const std::string& path) {
  if (path.empty() || key == path) return true;
  return key.size() > path.size() && key.compare(0, path.size(), path) == 0 &&
         (key[path.size()] == '.' || key[path.size()] == '[');
}

}  // namespace

void SourceMap::erase_subtree(const std::string& path) {
  // The keys that start with `path` sit together in the ordered map: visit only those, so that
  // expanding thousands of layers does not scan the whole map for each one.
  for (auto it = origins_.lower_bound(path); it != origins_.end() && it->first.starts_with(path);) {
    it = at_or_below(it->first, path) ? origins_.erase(it) : std::next(it);
  }
}

void SourceMap::replace_subtree(const std::string& path, const SourceOrigin& origin) {
  erase_subtree(path);
  origins_[path] = origin;
}

void SourceMap::copy_subtree(const SourceMap& other, const std::string& path) {
  copy_subtree_to(other, path, path);
}

void SourceMap::copy_subtree_to(const SourceMap& other, const std::string& from,
                                const std::string& to) {
  erase_subtree(to);
  for (auto it = other.origins_.lower_bound(from);
       it != other.origins_.end() && it->first.starts_with(from); ++it) {
    const auto& [key, origin] = *it;
    if (!at_or_below(key, from)) continue;
    SourceOrigin copied = origin;
    if (copied.file.empty() && copied.override_text.empty()) copied.file = other.file_;
    origins_[to + key.substr(from.size())] = copied;
  }
}

void SourceMap::show_as(const std::string& path, std::string shown, std::string note) {
  shown_as_[path] = {std::move(shown), std::move(note)};
}

const SourceOrigin* SourceMap::find(const std::string& path) const {
  auto it = origins_.find(path);
  return it == origins_.end() ? nullptr : &it->second;
}

std::string SourceMap::shown_path(const std::string& path) const {
  std::string named = path;
  for (std::string probe = path; !shown_as_.empty(); probe = parent_path(probe)) {
    if (auto it = shown_as_.find(probe); it != shown_as_.end()) {
      named = it->second.shown + path.substr(probe.size());
      if (!it->second.note.empty()) named += " (" + it->second.note + ")";
      break;
    }
    if (probe.empty()) break;
  }
  if (path_prefix_.empty()) return named;
  return named.empty() ? path_prefix_ : child_path(path_prefix_, named);
}

SourceLocation SourceMap::locate(const std::string& path, bool at_key) const {
  SourceLocation where{file_, shown_path(path), 0, 0};
  std::string probe = path;
  while (true) {
    if (const SourceOrigin* origin = find(probe)) {
      if (!origin->override_text.empty()) {
        where.file = origin->override_text;
        return where;
      }
      if (!origin->file.empty()) where.file = origin->file;
      if (at_key && probe == path && origin->key_line > 0) {
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
