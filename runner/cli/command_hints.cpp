// Hints for a mistyped command or an option that is really a config field.
#include "runner/cli/command_hints.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>

#include "runner/config/schema_file.h"
#include "runner/util/errors.h"

namespace runner {
namespace {

// Words users of other tools type for a runner command, too far from it for the edit distance.
const std::map<std::string, std::string>& command_synonyms() {
  static const std::map<std::string, std::string> synonyms = {
      {"train", "run"},       {"fit", "run"},       {"benchmark", "bench"},  {"time", "bench"},
      {"evaluate", "eval"},   {"test", "eval"},     {"check", "validate"},   {"summary", "report"},
      {"rerun", "reproduce"}, {"info", "describe"}, {"summarize", "report"}, {"list", "devices"}};
  return synonyms;
}

// Every field path of a schema node, following $ref into definitions; list items are skipped
// (a layer's field is not one --set path).
void collect_fields(const nlohmann::ordered_json& root, const nlohmann::ordered_json& node,
                    const std::string& prefix, std::set<std::string>& out, int depth) {
  if (depth > 12 || !node.is_object()) return;
  if (auto ref = node.find("$ref"); ref != node.end() && ref->is_string()) {
    std::string pointer = ref->get<std::string>();
    if (pointer.rfind("#", 0) == 0) {
      nlohmann::ordered_json::json_pointer at(pointer.substr(1));
      if (root.contains(at)) collect_fields(root, root.at(at), prefix, out, depth + 1);
    }
  }
  if (auto properties = node.find("properties"); properties != node.end()) {
    for (const auto& [key, child] : properties->items()) {
      std::string path = prefix.empty() ? key : prefix + "." + key;
      out.insert(path);
      collect_fields(root, child, path, out, depth + 1);
    }
  }
  for (const char* combinator : {"allOf", "anyOf", "oneOf"}) {
    if (auto list = node.find(combinator); list != node.end() && list->is_array()) {
      for (const auto& item : *list) collect_fields(root, item, prefix, out, depth + 1);
    }
  }
  if (auto then = node.find("then"); then != node.end()) {
    collect_fields(root, *then, prefix, out, depth + 1);
  }
}

const std::set<std::string>& config_fields() {
  static const std::set<std::string> fields = [] {
    std::set<std::string> out;
    try {
      nlohmann::ordered_json schema = load_schema("experiment.schema.json");
      collect_fields(schema, schema, "", out, 0);
    } catch (const std::exception&) {
      // Without the schema there is no hint, and the message stands without it.
    }
    return out;
  }();
  return fields;
}

}  // namespace

bool looks_like_command(const std::string& arg) {
  if (arg.empty()) return false;
  bool plain = std::all_of(arg.begin(), arg.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  });
  std::error_code ignored;
  return plain && std::isalpha(static_cast<unsigned char>(arg[0])) &&
         !std::filesystem::exists(arg, ignored);
}

std::string unknown_command_message(const std::string& word,
                                    const std::vector<std::string>& commands) {
  std::string suggestion = nearest_match(word, commands);
  if (auto synonym = command_synonyms().find(word);
      suggestion.empty() && synonym != command_synonyms().end()) {
    suggestion = synonym->second;
  }
  return fmt::format(
      "unknown command '{}'{}; the commands are: {} (and `runner CONFIG` is short "
      "for `runner run CONFIG`)",
      word, suggestion.empty() ? "" : fmt::format(" (did you mean '{}'?)", suggestion),
      fmt::join(commands, ", "));
}

std::vector<std::string> config_fields_named(const std::string& option) {
  std::string name = option;
  std::replace(name.begin(), name.end(), '-', '_');
  std::vector<std::string> found;
  for (const auto& field : config_fields()) {
    std::size_t dot = field.rfind('.');
    if ((dot == std::string::npos ? field : field.substr(dot + 1)) == name) found.push_back(field);
  }
  return found;
}

std::string unexpected_arguments_message(const std::vector<std::string>& extras) {
  std::string message = fmt::format("unexpected argument{}: {}", extras.size() > 1 ? "s" : "",
                                    fmt::join(extras, " "));
  for (std::size_t i = 0; i < extras.size(); ++i) {
    const std::string& arg = extras[i];
    if (arg.rfind("--", 0) != 0 || arg.size() < 3) continue;
    std::size_t equals = arg.find('=');
    std::string name = arg.substr(2, equals == std::string::npos ? std::string::npos : equals - 2);
    std::string value = equals != std::string::npos ? arg.substr(equals + 1)
                        : i + 1 < extras.size() && extras[i + 1].rfind("-", 0) != 0 ? extras[i + 1]
                                                                                    : "VALUE";
    if (name == "output" || name == "quiet") {  // given where nothing is written
      message +=
          fmt::format("\n  --{} is not an option of this command: it writes no report", name);
      continue;
    }
    std::vector<std::string> fields = config_fields_named(name);
    if (fields.empty()) continue;
    // The shallowest field first (training.epochs before training.schedule.warmup.epochs).
    std::stable_sort(fields.begin(), fields.end(), [](const auto& a, const auto& b) {
      return std::count(a.begin(), a.end(), '.') < std::count(b.begin(), b.end(), '.');
    });
    message +=
        fmt::format("\n  --{} is not an option; to change the config's {}, write --set {}={}", name,
                    fields[0], fields[0], value);
    if (fields.size() > 1) {
      message +=
          fmt::format(" (other fields so named: {})",
                      fmt::join(std::vector<std::string>(fields.begin() + 1, fields.end()), ", "));
    }
  }
  return message;
}

}  // namespace runner
