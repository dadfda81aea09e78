// Resolving ${...} references in a config: environment variables and other fields.
#include "runner/config/interpolate.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "runner/config/config_limits.h"
#include "runner/config/expression.h"
#include "runner/config/field_path.h"
#include "runner/config/yaml_to_json.h"
#include "runner/util/errors.h"
#include "runner/util/utf8.h"

namespace runner {
namespace {

// One `${...}` in a string: where it starts, its length, and the text between the braces.
struct Reference {
  std::size_t start = 0, length = 0;
  std::string body;
};

class Interpolator {
 public:
  // `params`, when given: a block's parameters, which references name before the config's fields.
  Interpolator(nlohmann::json& root, const SourceMap& map, const nlohmann::json* params = nullptr)
      : root_(root), map_(map), params_(params) {}

  // Resolves the value at `path` and everything below it.
  void resolve(const std::string& path, nlohmann::json& value) {
    if (path == kBlocksPath && !params_) return;  // resolved as each use expands them
    if (value.is_object()) {
      for (auto& [key, child] : value.items()) resolve(child_path(path, key), child);
    } else if (value.is_array()) {
      for (std::size_t i = 0; i < value.size(); ++i) resolve(item_path(path, i), value[i]);
    } else if (value.is_string() && value.get<std::string>().find("${") != std::string::npos) {
      for (const auto& open : resolving_) {
        if (open == path) fail(path, fmt::format("the references form a cycle: {}", cycle(path)));
      }
      // Each link of a chain is a few stack frames: 12,000 links overflowed the stack.
      if (resolving_.size() >= limits::max_reference_chain) {
        fail(path,
             fmt::format("the references form a chain of more than {} fields ({} -> ... -> {})",
                         limits::max_reference_chain, resolving_.front(), path),
             "refer to the field that holds the value, not to a reference to it");
      }
      resolving_.push_back(path);
      nlohmann::json resolved = substitute(path, value.get<std::string>());
      resolving_.pop_back();
      value = std::move(resolved);
    }
  }

 private:
  nlohmann::json& root_;
  const SourceMap& map_;
  const nlohmann::json* params_;
  std::vector<std::string> resolving_;  // fields whose references are being followed

  [[noreturn]] void fail(const std::string& path, const std::string& problem,
                         const std::string& hint = "") const {
    throw_user_error(map_.locate(path), problem, hint);
  }

  std::string cycle(const std::string& path) const {
    std::string text;
    bool in = false;
    for (const auto& open : resolving_) {
      in = in || open == path;
      if (in) text += open + " -> ";
    }
    return text + path;
  }

  std::vector<Reference> find_references(const std::string& path, const std::string& text) const {
    std::vector<Reference> found;
    for (std::size_t at = text.find("${"); at != std::string::npos; at = text.find("${", at)) {
      std::size_t close = text.find('}', at);
      if (close == std::string::npos) {
        fail(path, fmt::format("found '{}' with no closing '}}'", text.substr(at)),
             "write ${env:VAR} or ${path.to.key}");
      }
      std::string body = text.substr(at + 2, close - at - 2);
      if (body.find("${") != std::string::npos) {
        fail(path, fmt::format("found a reference inside a reference in '{}'", text),
             "references do not nest");
      }
      found.push_back({at, close + 1 - at, body});
      at = close + 1;
    }
    return found;
  }

  nlohmann::json substitute(const std::string& path, const std::string& text) {
    std::vector<Reference> references = find_references(path, text);
    if (references.size() == 1 && references[0].length == text.size()) {
      return value_of(path, references[0].body);
    }
    std::string out;
    std::size_t copied = 0;
    for (const Reference& reference : references) {
      out += text.substr(copied, reference.start - copied);
      nlohmann::json value = value_of(path, reference.body);
      if (value.is_string()) {
        out += value.get<std::string>();
      } else if (value.is_number() || value.is_boolean()) {
        out += value.dump();
      } else {
        fail(path,
             fmt::format("${{{}}} is {}, which cannot be part of a text", reference.body,
                         value.is_null()    ? "null"
                         : value.is_array() ? "a list"
                                            : "a mapping"),
             "a reference to a list or mapping must be the whole value");
      }
      copied = reference.start + reference.length;
    }
    out += text.substr(copied);
    check_text(path, out, "the text after its references are replaced");
    return out;
  }

  // A text that arrives through a reference meets the limits of a text written in the file:
  // a 30,000-character variable overflowed the stack of a later std::regex, and a reference
  // doubling at every level grew to gigabytes.
  void check_text(const std::string& path, std::string_view text, const std::string& what) const {
    if (text.size() > limits::max_string_length) {
      fail(path, fmt::format("{} is {} characters long, more than the {} a config text may have",
                             what, text.size(), limits::max_string_length));
    }
    if (std::optional<std::size_t> bad = first_invalid_utf8(text)) {
      fail(path, fmt::format("{} is not UTF-8 text (byte {} is 0x{:02x})", what, *bad + 1,
                             static_cast<unsigned char>(text[*bad])));
    }
  }

  nlohmann::json value_of(const std::string& path, const std::string& body) {
    for (const char* prefix : {"env:", "oc.env:"}) {
      if (body.rfind(prefix, 0) == 0) return environment_value(path, body.substr(strlen(prefix)));
    }
    if (body.rfind("expr:", 0) == 0) {
      try {
        return evaluate_expression(
            body.substr(5), [&](const std::string& field) { return field_value(path, field); });
      } catch (const ExpressionError& error) {
        fail(
            path, fmt::format("${{{}}}: {}", body, error.what()),
            "write arithmetic of numbers and fields, e.g. ${expr:0.1 * training.batch_size / 128}");
      }
    }
    return field_value(path, body);
  }

  nlohmann::json environment_value(const std::string& path, const std::string& spec) const {
    std::size_t comma = spec.find(',');
    std::string name = spec.substr(0, comma);
    if (name.empty()) fail(path, "found ${env:} without a variable name", "write ${env:VAR}");
    if (const char* set = std::getenv(name.c_str())) {
      check_text(path, set, fmt::format("the environment variable {}", name));
      return plain_scalar_to_json(set);
    }
    if (comma == std::string::npos) {
      fail(path, fmt::format("the environment variable {} is not set", name),
           fmt::format("set it, or give a default: ${{env:{},VALUE}}", name));
    }
    std::string fallback = spec.substr(comma + 1);
    while (!fallback.empty() && fallback.front() == ' ') fallback.erase(0, 1);
    return plain_scalar_to_json(fallback);
  }

  nlohmann::json field_value(const std::string& path, const std::string& target_text) {
    std::optional<FieldPath> target = parse_path(target_text);
    if (!target) {
      fail(path, fmt::format("'${{{}}}' names no field", target_text),
           "write ${env:VAR} for an environment variable, ${training.lr} for another field");
    }
    nlohmann::json* node = &root_;
    std::string walked;
    if (params_ && !target->front().index && params_->contains(target->front().key)) {
      return parameter_value(path, target_text, *target);
    }
    for (const PathSegment& segment : *target) {
      bool found = segment.index ? node->is_array() && *segment.index < node->size()
                                 : node->is_object() && node->contains(segment.key);
      if (!found) {
        fail(path,
             fmt::format("${{{}}} refers to {}, which the config does not have", target_text,
                         format_path(*target)),
             parameters_hint(target_text, *target));
      }
      walked = segment.index ? item_path(walked, *segment.index) : child_path(walked, segment.key);
      node = segment.index ? &(*node)[*segment.index] : &(*node)[segment.key];
    }
    resolve(walked, *node);
    return *node;
  }

  std::string parameters_hint(const std::string& target_text, const FieldPath& target) const {
    if (params_) {
      std::vector<std::string> names;
      for (const auto& [name, value] : params_->items()) names.push_back(name);
      if (names.empty()) return "";
      return fmt::format("the block's parameters: {}", fmt::join(names, ", "));
    }
    return target.size() == 1 ? "for an environment variable write ${env:" + target_text + "}" : "";
  }

  // ${out} or ${shape[0]} inside a block: the parameter's value (already resolved by the use).
  nlohmann::json parameter_value(const std::string& path, const std::string& target_text,
                                 const FieldPath& target) const {
    const nlohmann::json* node = &(*params_)[target.front().key];
    for (std::size_t i = 1; i < target.size(); ++i) {
      const PathSegment& segment = target[i];
      bool found = segment.index ? node->is_array() && *segment.index < node->size()
                                 : node->is_object() && node->contains(segment.key);
      if (!found) {
        fail(path, fmt::format("${{{}}}: the parameter {} has no {}", target_text,
                               target.front().key, format_path({segment})));
      }
      node = segment.index ? &(*node)[*segment.index] : &(*node)[segment.key];
    }
    return *node;
  }
};

}  // namespace

void interpolate_config(nlohmann::json& config, const SourceMap& source_map) {
  Interpolator interpolator(config, source_map);
  interpolator.resolve("", config);
}

void interpolate_block_field(nlohmann::json& value, const std::string& path,
                             const nlohmann::json& params, nlohmann::json& config,
                             const SourceMap& source_map) {
  Interpolator interpolator(config, source_map, &params);
  interpolator.resolve(path, value);
}

}  // namespace runner
