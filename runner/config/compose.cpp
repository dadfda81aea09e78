// Composing a config from the files its `defaults:` and `include:` name, keeping every field's
// file:line:col for messages.
#include "runner/config/compose.h"

#include <fmt/format.h>

#include <vector>

#include "runner/config/config_limits.h"
#include "runner/config/field_path.h"
#include "runner/config/yaml_to_json.h"
#include "runner/util/errors.h"
#include "runner/util/files.h"

namespace runner {
namespace {

const char* kind_of(const nlohmann::json& value) {
  if (value.is_object()) return "a mapping";
  if (value.is_array()) return "a list";
  if (value.is_string()) return "a string";
  if (value.is_null()) return "nothing";
  return value.is_boolean() ? "a boolean" : "a number";
}

// One entry of a `defaults:` or `include:` list: the path as written and where it is written.
struct IncludeEntry {
  std::string path_text;
  SourceLocation where;  // the including file, line and field ("defaults[0]")
};

// The entries of the top-level `key`, removed from `json` and its source map.
std::vector<IncludeEntry> take_includes(nlohmann::json& json, SourceMap& map,
                                        const std::string& key) {
  std::vector<IncludeEntry> entries;
  auto found = json.find(key);
  if (found == json.end()) return entries;
  auto add = [&](const nlohmann::json& value, const std::string& field) {
    if (!value.is_string() || value.get<std::string>().empty()) {
      throw_user_error(map.locate(field),
                       fmt::format("found {}, expected the path of a YAML file", kind_of(value)),
                       "list files relative to this one, e.g. defaults: [../base.yaml]");
    }
    entries.push_back({value.get<std::string>(), map.locate(field)});
  };
  if (found->is_array()) {
    for (std::size_t i = 0; i < found->size(); ++i) add((*found)[i], item_path(key, i));
  } else {
    add(*found, key);
  }
  json.erase(found);
  map.erase_subtree(key);
  return entries;
}

struct Composer {
  std::vector<std::filesystem::path> chain;  // the files being composed, outermost first

  std::string chain_text(const std::filesystem::path& last) const {
    std::string text;
    for (const auto& file : chain) text += file.filename().string() + " -> ";
    return text + last.filename().string();
  }

  nlohmann::json compose(const std::filesystem::path& file, SourceMap& out) {
    std::string text = read_regular_file(file, limits::max_config_bytes, "a YAML config file");
    SourceMap own(file.string());
    nlohmann::json json = yaml_to_json(text, file.string(), own);
    if (!json.is_object()) {  // the schema check words this for the top file
      out = std::move(own);
      return json;
    }
    std::vector<IncludeEntry> entries = take_includes(json, own, "defaults");
    for (auto& entry : take_includes(json, own, "include")) entries.push_back(std::move(entry));
    if (entries.empty()) {
      out = std::move(own);
      return json;
    }

    chain.push_back(std::filesystem::weakly_canonical(file));
    nlohmann::json merged = nlohmann::json::object();
    SourceMap merged_map(file.string());
    merged_map.add("", *own.find(""));
    for (const IncludeEntry& entry : entries) {
      SourceMap included_map;
      nlohmann::json included = include(file, entry, included_map);
      merge_config(merged, merged_map, included, included_map);
    }
    merge_config(merged, merged_map, json, own);  // the including file last: it wins
    chain.pop_back();
    out = std::move(merged_map);
    return merged;
  }

  nlohmann::json include(const std::filesystem::path& parent, const IncludeEntry& entry,
                         SourceMap& out) {
    const SourceLocation& where = entry.where;
    std::filesystem::path target = parent.parent_path() / entry.path_text;
    std::error_code error;
    if (!std::filesystem::exists(target, error)) {
      throw_user_error(where,
                       fmt::format("cannot find the included file '{}' (looked for {})",
                                   entry.path_text, target.lexically_normal().string()),
                       "paths are relative to the folder of the file that includes them");
    }
    // Before canonicalising: /dev/stdin from a pipe exists but has no canonical path.
    if (!std::filesystem::is_regular_file(target, error)) {
      throw_user_error(where,
                       fmt::format("the included file '{}' is not a regular file (a folder, a "
                                   "FIFO, a socket or a device), expected a YAML config file",
                                   entry.path_text));
    }
    std::filesystem::path canonical = std::filesystem::weakly_canonical(target);
    for (const auto& open : chain) {
      if (open == canonical) {
        throw_user_error(
            where, fmt::format("'{}' includes itself: {}", entry.path_text, chain_text(canonical)));
      }
    }
    if (static_cast<int>(chain.size()) >= kMaxIncludeDepth) {
      throw_user_error(where, fmt::format("includes are nested more than {} files deep ({})",
                                          kMaxIncludeDepth, chain_text(canonical)));
    }
    nlohmann::json included = compose(target, out);
    if (!included.is_object()) {
      throw_user_error(where, fmt::format("'{}' holds {}, expected a mapping of config fields",
                                          entry.path_text, kind_of(included)));
    }
    return included;
  }
};

void merge_at(nlohmann::json& dst, SourceMap& dst_map, const nlohmann::json& src,
              const SourceMap& src_map, const std::string& path) {
  for (const auto& [key, value] : src.items()) {
    const std::string child = child_path(path, key);
    const SourceOrigin* origin = src_map.find(child);
    const bool replace = origin && origin->replace;
    auto existing = dst.find(key);
    if (!replace && existing != dst.end() && existing->is_object() && value.is_object()) {
      merge_at(*existing, dst_map, value, src_map, child);
      if (origin) {  // the key itself is now the later file's
        SourceOrigin later = *origin;
        if (later.file.empty()) later.file = src_map.file();
        dst_map.add(child, later);
      }
    } else {
      dst[key] = value;
      dst_map.copy_subtree(src_map, child);
    }
  }
}

}  // namespace

void merge_config(nlohmann::json& dst, SourceMap& dst_map, const nlohmann::json& src,
                  const SourceMap& src_map) {
  merge_at(dst, dst_map, src, src_map, "");
}

nlohmann::json compose_config(const std::filesystem::path& file, SourceMap& source_map) {
  Composer composer;
  return composer.compose(file, source_map);
}

}  // namespace runner
