// Schema traversal and plain-words descriptions of sub-schemas.
#include "runner/config/schema_walk.h"

#include <fmt/format.h>

#include <algorithm>

#include "runner/config/schema_check.h"

namespace runner {
namespace {

using Schemas = std::vector<const nlohmann::ordered_json*>;

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? separator : "") + parts[i];
  return out;
}

std::string plain(const nlohmann::ordered_json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

std::string type_words(const std::string& type) {
  if (type == "integer") return "an integer";
  if (type == "number") return "a number";
  if (type == "string") return "a string";
  if (type == "boolean") return "true or false";
  if (type == "array") return "a list";
  if (type == "object") return "a mapping";
  return type;
}

// "an integer >= 1" → "integers >= 1", "a mapping with keys a, b" → "mappings with keys a, b";
// "" for phrases without a leading article ("true or false", "one of a, b").
std::string plural(const std::string& phrase) {
  for (const std::string article : {"a ", "an "}) {
    if (phrase.rfind(article, 0) != 0) continue;
    std::string rest = phrase.substr(article.size());
    std::size_t word_end = rest.find(' ');
    if (word_end == std::string::npos) word_end = rest.size();
    if (rest.compare(0, word_end, "non-empty") == 0 || rest.compare(0, word_end, "list") == 0) {
      return "";  // "a non-empty string", "a list of ...": no simple plural
    }
    return rest.insert(word_end, "s");
  }
  return "";
}

}  // namespace

std::string short_json(const nlohmann::json& value) {
  std::string text = value.dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

const nlohmann::ordered_json& SchemaWalk::resolve(const nlohmann::ordered_json& schema) const {
  const nlohmann::ordered_json* current = &schema;
  for (int depth = 0; depth < 32 && current->is_object() && current->contains("$ref"); ++depth) {
    std::string reference = (*current)["$ref"].get<std::string>();
    if (reference.rfind("#", 0) != 0) break;  // only local references are used here
    nlohmann::ordered_json::json_pointer pointer(reference.substr(1));
    if (!root_.contains(pointer)) break;
    current = &root_.at(pointer);
  }
  return *current;
}

SchemaWalk::SchemaWalk(const nlohmann::ordered_json& root) : root_(root) {}
SchemaWalk::~SchemaWalk() = default;

bool SchemaWalk::matches(const nlohmann::ordered_json& schema, const nlohmann::json& value) const {
  auto& compiled = conditions_[&schema];
  if (!compiled) {
    const std::string text = schema.dump();
    nlohmann::json standalone = nlohmann::json::parse(text);
    // Conditions are mostly `{"properties": {"type": {"const": ...}}}`: only one that refers to
    // a definition needs the definitions beside it.
    if (standalone.is_object() && root_.contains("definitions") &&
        text.find("\"$ref\"") != std::string::npos) {
      standalone["definitions"] = nlohmann::json::parse(root_["definitions"].dump());
    }
    compiled = std::make_unique<CompiledSchema>(standalone);
  }
  return compiled->violations(value).empty();
}

void SchemaWalk::expand(const nlohmann::ordered_json& schema, const nlohmann::json& value,
                        Schemas& out) const {
  const nlohmann::ordered_json& s = resolve(schema);
  if (!s.is_object() || std::find(out.begin(), out.end(), &s) != out.end()) return;
  out.push_back(&s);
  for (const char* combinator : {"allOf", "anyOf", "oneOf"}) {
    if (s.contains(combinator)) {
      for (const auto& part : s[combinator]) expand(part, value, out);
    }
  }
  if (s.contains("if")) {
    const char* branch = matches(s["if"], value) ? "then" : "else";
    if (s.contains(branch)) expand(s[branch], value, out);
  }
}

Schemas SchemaWalk::at(const nlohmann::json& instance, const FieldPath& path) const {
  Schemas current;
  expand(root_, instance, current);
  const nlohmann::json* value = &instance;
  static const nlohmann::json missing;
  for (const PathSegment& segment : path) {
    // The child value (null when absent) and the schemas written for it directly.
    const nlohmann::json* child = &missing;
    Schemas direct;
    if (segment.index) {
      if (value->is_array() && *segment.index < value->size()) child = &(*value)[*segment.index];
      for (const auto* s : current) {
        if (!s->contains("items")) continue;
        const auto& items = (*s)["items"];
        if (items.is_array()) {
          if (*segment.index < items.size()) direct.push_back(&items[*segment.index]);
        } else {
          direct.push_back(&items);
        }
      }
    } else {
      if (value->is_object() && value->contains(segment.key)) child = &(*value)[segment.key];
      for (const auto* s : current) {
        if (s->contains("properties") && (*s)["properties"].contains(segment.key)) {
          direct.push_back(&(*s)["properties"][segment.key]);
        } else if (s->contains("additionalProperties") &&
                   (*s)["additionalProperties"].is_object()) {
          direct.push_back(&(*s)["additionalProperties"]);
        }
      }
    }
    current.clear();
    for (const auto* s : direct) expand(*s, *child, current);
    value = child;
  }
  return current;
}

std::vector<std::string> SchemaWalk::known_keys(const Schemas& schemas) const {
  std::vector<std::string> keys;
  for (const auto* s : schemas) {
    if (!s->contains("properties")) continue;
    for (const auto& [key, ignored] : (*s)["properties"].items()) {
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    }
  }
  return keys;
}

std::vector<std::string> SchemaWalk::enum_values(const Schemas& schemas) const {
  std::vector<std::string> values;
  for (const auto* s : schemas) {
    if (!s->contains("enum")) continue;
    for (const auto& value : (*s)["enum"]) values.push_back(plain(value));
    break;
  }
  return values;
}

std::string SchemaWalk::describe(const Schemas& schemas) const {
  // The first schema that says something; placeholders like `{}` say nothing.
  for (const auto* s : schemas) {
    for (const char* keyword : {"enum", "const", "anyOf", "oneOf", "type"}) {
      if (s->contains(keyword)) return describe_one(*s);
    }
  }
  return "any value";
}

std::string SchemaWalk::describe_one(const nlohmann::ordered_json& schema) const {
  const nlohmann::ordered_json& s = resolve(schema);
  if (s.contains("enum")) {
    std::vector<std::string> values;
    for (const auto& value : s["enum"]) values.push_back(plain(value));
    return values.size() == 1 ? values[0] : "one of " + join(values, ", ");
  }
  if (s.contains("const")) return plain(s["const"]);
  for (const char* combinator : {"anyOf", "oneOf"}) {
    if (!s.contains(combinator)) continue;
    std::vector<std::string> alternatives;
    for (const auto& part : s[combinator]) alternatives.push_back(describe_one(part));
    return join(alternatives, " or ");
  }
  if (!s.contains("type")) return "any value";

  std::vector<std::string> types;
  if (s["type"].is_array()) {
    for (const auto& t : s["type"]) types.push_back(t.get<std::string>());
  } else {
    types.push_back(s["type"].get<std::string>());
  }
  std::vector<std::string> words;
  for (const auto& type : types) {
    std::string text = type_words(type);
    if (type == "integer" || type == "number") {
      std::vector<std::string> bounds;
      if (s.contains("minimum") && s.contains("maximum")) {
        bounds.push_back(fmt::format("from {} to {}", s["minimum"].dump(), s["maximum"].dump()));
      } else if (s.contains("minimum")) {
        bounds.push_back(">= " + s["minimum"].dump());
      }
      if (s.contains("exclusiveMinimum")) bounds.push_back("> " + s["exclusiveMinimum"].dump());
      if (s.contains("maximum") && !s.contains("minimum")) {
        bounds.push_back("<= " + s["maximum"].dump());
      }
      if (s.contains("exclusiveMaximum")) bounds.push_back("< " + s["exclusiveMaximum"].dump());
      if (!bounds.empty()) text += " " + join(bounds, " and ");
    } else if (type == "string") {
      if (s.contains("pattern")) {
        text = s.contains("description") ? s["description"].get<std::string>()
                                         : "a string matching " + s["pattern"].get<std::string>();
      } else if (s.value("minLength", 0) > 0) {
        text = "a non-empty string";
      }
    } else if (type == "array") {
      int low = s.value("minItems", 0);
      int high = s.value("maxItems", -1);
      std::string each =
          s.contains("items") && s["items"].is_object() ? describe_one(s["items"]) : "any value";
      std::string items = plural(each);  // "integers >= 1", or "" when it has no plural
      if (items.empty()) items = "items";
      if (low == high) {
        text = fmt::format("a list of {} {}", low, items);
      } else if (low > 0 && high >= 0) {
        text = fmt::format("a list of {} to {} {}", low, high, items);
      } else if (low == 1) {
        text = "a non-empty list of " + items;
      } else if (low > 0) {
        text = fmt::format("a list of at least {} {}", low, items);
      } else if (high >= 0) {
        text = fmt::format("a list of at most {} {}", high, items);
      } else {
        text = "a list of " + items;
      }
      if (items == "items" && each != "any value") text += " (each " + each + ")";
      if (s.value("uniqueItems", false)) text += ", none repeated";
    } else if (type == "object") {
      Schemas self{&s};
      std::vector<std::string> keys = known_keys(self);
      if (!keys.empty()) text += " with keys " + join(keys, ", ");
    }
    words.push_back(text);
  }
  return join(words, " or ");
}

}  // namespace runner
