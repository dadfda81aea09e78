// YAML → JSON conversion with yaml-cpp; scalars typed by the YAML 1.2 core schema's rules.
#include "runner/config/yaml_to_json.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <regex>

#include "runner/config/field_path.h"

namespace runner {
namespace {

int one_based(int zero_based) {
  return zero_based < 0 ? 0 : zero_based + 1;
}

std::optional<nlohmann::json> parse_integer(const std::string& text, int base, std::size_t skip) {
  const char* first = text.data() + skip;
  const char* last = text.data() + text.size();
  bool negative = false;
  if (first < last && (*first == '-' || *first == '+')) negative = *first++ == '-';
  std::uint64_t magnitude = 0;
  auto [end, error] = std::from_chars(first, last, magnitude, base);
  if (end != last) return std::nullopt;
  if (error == std::errc::result_out_of_range) return std::nullopt;  // caller falls back to float
  if (!negative) {
    if (magnitude <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return nlohmann::json(static_cast<std::int64_t>(magnitude));
    }
    return nlohmann::json(magnitude);
  }
  if (magnitude <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1) {
    return nlohmann::json(static_cast<std::int64_t>(0 - magnitude));
  }
  return std::nullopt;
}

struct Converter {
  const std::string& file;
  SourceMap& source_map;

  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& path,
                         const std::string& problem) const {
    throw_user_error({file, path, one_based(mark.line), one_based(mark.column)}, problem);
  }

  nlohmann::json scalar(const YAML::Node& node) const {
    const std::string& tag = node.Tag();
    // "!" marks a quoted or block scalar: always a string. So does an explicit !!str.
    if (tag == "!" || tag == "tag:yaml.org,2002:str") return node.Scalar();
    return plain_scalar_to_json(node.Scalar());
  }

  nlohmann::json convert(const YAML::Node& node, const std::string& path) const {
    switch (node.Type()) {
      case YAML::NodeType::Null:
      case YAML::NodeType::Undefined:
        return nullptr;
      case YAML::NodeType::Scalar:
        return scalar(node);
      case YAML::NodeType::Sequence: {
        nlohmann::json out = nlohmann::json::array();
        for (std::size_t i = 0; i < node.size(); ++i) {
          std::string child = item_path(path, i);
          const YAML::Node item = node[i];
          record(child, item.Mark(), item.Mark());
          out.push_back(convert(item, child));
        }
        return out;
      }
      case YAML::NodeType::Map: {
        nlohmann::json out = nlohmann::json::object();
        for (const auto& entry : node) {
          if (!entry.first.IsScalar()) fail(entry.first.Mark(), path, "a key must be a plain word");
          std::string key = entry.first.Scalar();
          std::string child = child_path(path, key);
          if (out.contains(key)) {
            const SourceOrigin* first = source_map.find(child);
            fail(entry.first.Mark(), child,
                 fmt::format("duplicate key '{}' (first given on line {})", key,
                             first ? first->key_line : 0));
          }
          // A null value (`key:`) has no useful mark of its own: point at the key.
          YAML::Mark value_mark = entry.second.IsNull() ? entry.first.Mark() : entry.second.Mark();
          record(child, value_mark, entry.first.Mark());
          out[key] = convert(entry.second, child);
        }
        return out;
      }
    }
    return nullptr;
  }

  void record(const std::string& path, const YAML::Mark& value, const YAML::Mark& key) const {
    SourceOrigin origin;
    origin.line = one_based(value.line);
    origin.column = one_based(value.column);
    origin.key_line = one_based(key.line);
    origin.key_column = one_based(key.column);
    source_map.add(path, origin);
  }
};

}  // namespace

nlohmann::json plain_scalar_to_json(const std::string& text) {
  static const std::regex null_re("~|null|Null|NULL|");
  static const std::regex true_re("true|True|TRUE");
  static const std::regex false_re("false|False|FALSE");
  static const std::regex int_re("[-+]?[0-9]+");
  static const std::regex octal_re("0o[0-7]+");
  static const std::regex hex_re("0x[0-9a-fA-F]+");
  static const std::regex float_re("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  static const std::regex infinity_re("[-+]?\\.(inf|Inf|INF)");
  static const std::regex nan_re("\\.(nan|NaN|NAN)");

  if (std::regex_match(text, null_re)) return nullptr;
  if (std::regex_match(text, true_re)) return true;
  if (std::regex_match(text, false_re)) return false;
  if (std::regex_match(text, int_re)) {
    if (auto value = parse_integer(text, 10, 0)) return *value;
    return std::strtod(text.c_str(), nullptr);  // too large for 64 bits: keep its magnitude
  }
  if (std::regex_match(text, octal_re)) {
    if (auto value = parse_integer(text, 8, 2)) return *value;
  }
  if (std::regex_match(text, hex_re)) {
    if (auto value = parse_integer(text, 16, 2)) return *value;
  }
  if (std::regex_match(text, float_re)) return std::strtod(text.c_str(), nullptr);
  if (std::regex_match(text, infinity_re)) {
    return text[0] == '-' ? -std::numeric_limits<double>::infinity()
                          : std::numeric_limits<double>::infinity();
  }
  if (std::regex_match(text, nan_re)) return std::numeric_limits<double>::quiet_NaN();
  return text;
}

nlohmann::json yaml_to_json(const std::string& text, const std::string& file,
                            SourceMap& source_map) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& error) {
    throw_user_error({file, "", one_based(error.mark.line), one_based(error.mark.column)},
                     "malformed YAML: " + error.msg);
  }
  Converter converter{file, source_map};
  SourceOrigin top;
  top.line = 1;
  top.column = 1;
  source_map.add("", top);
  try {
    return converter.convert(root, "");
  } catch (const YAML::Exception& error) {
    throw_user_error({file, "", one_based(error.mark.line), one_based(error.mark.column)},
                     "malformed YAML: " + error.msg);
  }
}

}  // namespace runner
