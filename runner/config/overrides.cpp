// Parsing and applying --set overrides.
#include "runner/config/overrides.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <map>
#include <mutex>

#include "runner/config/field_path.h"
#include "runner/config/yaml_to_json.h"
#include "runner/util/terminal_text.h"
#include "runner/util/utf8.h"

namespace runner {
namespace {

const char* type_name(const nlohmann::json& value) {
  if (value.is_array()) return "a list";
  if (value.is_object()) return "a mapping";
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "a boolean";
  if (value.is_number()) return "a number";
  return "null";
}

[[noreturn]] void fail(const std::string& origin_text, const std::string& path,
                       const std::string& problem, const std::string& hint = "") {
  throw_user_error({origin_text, path, 0, 0}, problem, hint);
}

// VALUE read as YAML (empty: the empty string), errors naming the override.
nlohmann::json parse_value(const std::string& value_text, const std::string& path_text,
                           const std::string& origin_text) {
  if (value_text.empty()) return "";
  // A sweep applies the same few values to many points: each text is read as YAML once.
  static std::mutex mutex;
  static std::map<std::string, nlohmann::json> parsed;
  {
    std::lock_guard lock(mutex);
    if (auto found = parsed.find(value_text); found != parsed.end()) return found->second;
  }
  try {
    YAML::Load(value_text);  // a syntax error is reported here, naming the override
  } catch (const YAML::Exception& error) {
    fail(origin_text, path_text, "cannot read VALUE as YAML: " + error.msg,
         "quote text that holds YAML punctuation, e.g. --set 'name=\"a: b\"'");
  }
  SourceMap ignored;
  nlohmann::json value = yaml_to_json(value_text, origin_text, ignored, path_text);
  std::lock_guard lock(mutex);
  if (parsed.size() >= 4096) parsed.clear();  // bounded memory
  parsed.emplace(value_text, value);
  return value;
}

// The node at `path` (nullptr when absent) and the container holding it.
struct Found {
  nlohmann::json* parent = nullptr;
  nlohmann::json* node = nullptr;
};

Found find_field(nlohmann::json& config, const FieldPath& path) {
  Found found;
  nlohmann::json* node = &config;
  for (const PathSegment& segment : path) {
    bool present = segment.index ? node->is_array() && *segment.index < node->size()
                                 : node->is_object() && node->contains(segment.key);
    if (!present) return {};
    found.parent = node;
    node = segment.index ? &(*node)[*segment.index] : &(*node)[segment.key];
  }
  found.node = node;
  return found;
}

// "~PATH" removes the field (a mapping key or a list item), as Hydra's `~key` does;
// "~PATH=VALUE" only when it holds VALUE (an error otherwise).
void delete_field(nlohmann::json& config, SourceMap& source_map, const std::string& text,
                  const std::string& origin_text) {
  const std::size_t equals = text.find('=');
  const std::string path_text = text.substr(0, equals);
  std::optional<FieldPath> path = parse_path(path_text);
  if (!path) {
    fail(origin_text, "", fmt::format("'{}' is not a field path", path_text),
         "write it like --set ~training.optimizer.momentum");
  }
  Found found = find_field(config, *path);
  if (!found.node) {
    fail(origin_text, path_text, "there is no such field to delete");
  }
  if (equals != std::string::npos) {
    nlohmann::json expected = parse_value(text.substr(equals + 1), path_text, origin_text);
    if (*found.node != expected) {
      fail(origin_text, path_text,
           fmt::format("found {}, expected {} (the value this deletion names)", found.node->dump(),
                       expected.dump()));
    }
  }
  const PathSegment& last = path->back();
  if (last.index) {
    found.parent->erase(*last.index);
    // The items after it moved up: their recorded lines no longer match their paths.
    SourceOrigin origin;
    origin.override_text = origin_text;
    path->pop_back();
    source_map.replace_subtree(format_path(*path), origin);
  } else {
    found.parent->erase(last.key);
    source_map.erase_subtree(format_path(*path));
  }
}

}  // namespace

void apply_override(nlohmann::json& config, SourceMap& source_map, const std::string& override_text,
                    const std::string& origin) {
  if (first_invalid_utf8(override_text)) {
    fail("--set", "", "the override is not UTF-8 text");
  }
  // One line however the value is written: a value of several lines ("8\n---\nx: 1") is named
  // by the option as given, its line breaks shown as \n.
  const std::string origin_text = origin.empty() ? "--set " + terminal_safe(override_text) : origin;
  if (override_text.rfind('~', 0) == 0) {
    delete_field(config, source_map, override_text.substr(1), origin_text);
    return;
  }
  // Hydra's +PATH=VALUE (add) and ++PATH=VALUE (add or set): --set does both already.
  const std::size_t plus = override_text.rfind("++", 0) == 0 ? 2 : override_text.rfind('+', 0) == 0;
  std::size_t equals = override_text.find('=');
  if (equals == std::string::npos) {
    fail(origin_text, "", "expected PATH=VALUE", "e.g. --set training.batch_size=64");
  }
  std::string path_text = override_text.substr(plus, equals - plus);
  std::string value_text = override_text.substr(equals + 1);
  std::optional<FieldPath> path = parse_path(path_text);
  if (!path) {
    fail(origin_text, "", fmt::format("'{}' is not a field path", path_text),
         "write it like training.batch_size or model.layers[0].out_channels");
  }

  nlohmann::json value = parse_value(value_text, path_text, origin_text);

  SourceOrigin set_here;
  set_here.override_text = origin_text;
  nlohmann::json* node = &config;
  std::string walked;
  for (const PathSegment& segment : *path) {
    if (segment.index) {
      if (!node->is_array()) {
        fail(origin_text, walked,
             fmt::format("cannot index [{}]: {} is {}, not a list", *segment.index,
                         walked.empty() ? "the config" : walked, type_name(*node)));
      }
      if (*segment.index >= node->size()) {
        fail(origin_text, walked,
             fmt::format("index {} is out of range: {} has {} item(s)", *segment.index, walked,
                         node->size()),
             node->empty() ? "" : fmt::format("use 0 to {}", node->size() - 1));
      }
      walked = item_path(walked, *segment.index);
      node = &(*node)[*segment.index];
    } else {
      if (node->is_null()) *node = nlohmann::json::object();  // a missing key, created
      if (!node->is_object()) {
        fail(origin_text, walked,
             fmt::format("cannot set key '{}': {} is {}, not a mapping", segment.key,
                         walked.empty() ? "the config" : walked, type_name(*node)));
      }
      walked = child_path(walked, segment.key);
      if (!node->contains(segment.key)) source_map.add(walked, set_here);  // created here
      node = &(*node)[segment.key];
    }
  }
  *node = std::move(value);

  source_map.replace_subtree(walked, set_here);
}

}  // namespace runner
