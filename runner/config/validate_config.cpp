// validate_config: valijson finds the errors; this file picks the most specific ones and words
// them with file:line:col, field path, value found, what was expected and a "did you mean".
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

#include "runner/config/load_config.h"
#include "runner/config/schema_check.h"
#include "runner/config/schema_file.h"
#include "runner/config/schema_walk.h"

namespace runner {
namespace {

enum class ProblemKind { value, missing_key, unknown_key };

// One failing field: for key problems, `path` ends in the missing or unknown key.
struct Problem {
  ProblemKind kind = ProblemKind::value;
  FieldPath path;
};

constexpr std::size_t max_reported = 5;

// valijson's context ("<root>", "[model]", "[layers]", "[3]") as a path; an all-digit step is an
// index when the value there is a list.
FieldPath context_to_path(const std::vector<std::string>& context, const nlohmann::json& root) {
  FieldPath path;
  const nlohmann::json* node = &root;
  static const nlohmann::json missing;
  for (const auto& step : context) {
    if (step.size() < 2 || step.front() != '[' || step.back() != ']') continue;  // "<root>"
    std::string token = step.substr(1, step.size() - 2);
    bool digits = !token.empty() && std::all_of(token.begin(), token.end(),
                                                [](unsigned char c) { return std::isdigit(c); });
    if (node->is_array() && digits) {
      std::size_t index = std::stoul(token);
      path.push_back({"", index});
      node = index < node->size() ? &(*node)[index] : &missing;
    } else {
      path.push_back({token, std::nullopt});
      node = node->is_object() && node->contains(token) ? &(*node)[token] : &missing;
    }
  }
  return path;
}

// The quoted name at the end of "...: 'kernal'." or "... property 'layers'.".
std::string quoted_name(const std::string& description) {
  std::size_t close = description.rfind('\'');
  std::size_t open = close == std::string::npos || close == 0 ? std::string::npos
                                                              : description.rfind('\'', close - 1);
  return open == std::string::npos ? "" : description.substr(open + 1, close - open - 1);
}

std::optional<Problem> classify(const SchemaViolation& violation, const nlohmann::json& root) {
  const std::string& text = violation.description;
  Problem problem;
  problem.path = context_to_path(violation.context, root);
  if (text.rfind("Failed to validate", 0) == 0) return std::nullopt;  // wraps a deeper error
  if (text.rfind("Object contains a property", 0) == 0) {
    problem.kind = ProblemKind::unknown_key;
    problem.path.push_back({quoted_name(text), std::nullopt});
  } else if (text.rfind("Missing required property", 0) == 0) {
    problem.kind = ProblemKind::missing_key;
    problem.path.push_back({quoted_name(text), std::nullopt});
  }
  return problem;
}

bool is_strict_prefix(const FieldPath& a, const FieldPath& b) {
  if (a.size() >= b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].index != b[i].index || a[i].key != b[i].key) return false;
  }
  return true;
}

// valijson names only the first unknown key of a mapping; adds the mapping's other unknown keys.
void add_other_unknown_keys(std::map<std::string, Problem>& by_path, const nlohmann::json& root,
                            const SchemaWalk& walk) {
  std::vector<Problem> extra;
  for (const auto& [ignored, problem] : by_path) {
    if (problem.kind != ProblemKind::unknown_key) continue;
    FieldPath parent(problem.path.begin(), problem.path.end() - 1);
    const nlohmann::json* object = &root;
    for (const auto& segment : parent) {
      object = segment.index ? &object->at(*segment.index) : &object->at(segment.key);
    }
    if (!object->is_object()) continue;
    std::vector<std::string> known = walk.known_keys(walk.at(root, parent));
    for (const auto& item : object->items()) {
      if (std::find(known.begin(), known.end(), item.key()) != known.end()) continue;
      FieldPath path = parent;
      path.push_back({item.key(), std::nullopt});
      extra.push_back({ProblemKind::unknown_key, path});
    }
  }
  for (const auto& problem : extra) by_path.emplace(format_path(problem.path), problem);
}

// A misspelt key explains the missing one it was meant to be: `kernal` for a missing `kernel`.
bool explains_missing_key(const Problem& unknown, const Problem& missing) {
  if (unknown.kind != ProblemKind::unknown_key || missing.kind != ProblemKind::missing_key) {
    return false;
  }
  if (unknown.path.size() != missing.path.size()) return false;
  FieldPath a(unknown.path.begin(), unknown.path.end() - 1);
  FieldPath b(missing.path.begin(), missing.path.end() - 1);
  const std::string& wanted = missing.path.back().key;
  return format_path(a) == format_path(b) &&
         nearest_match(unknown.path.back().key, {wanted}) == wanted;
}

// Whether a problem below this one's field explains it, or a misspelt sibling key does. Looks
// only at the map entries whose path starts with the field's (sorted: one range per separator),
// so that a config with tens of thousands of problems is checked in n log n, not n^2.
bool is_shadowed(const std::map<std::string, Problem>& by_path, const std::string& key,
                 const Problem& problem) {
  std::string parent_key =
      problem.path.empty() ? ""
                           : format_path(FieldPath(problem.path.begin(), problem.path.end() - 1));
  auto any_in_range = [&](const std::string& prefix, auto&& test) {
    for (auto it = by_path.lower_bound(prefix);
         it != by_path.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
      if (test(it->second)) return true;
    }
    return false;
  };
  for (const char* separator : {".", "["}) {
    std::string below = key.empty() ? "" : key + separator;
    if (any_in_range(below, [&](const Problem& other) {
          return is_strict_prefix(problem.path, other.path);
        })) {
      return true;
    }
  }
  if (problem.kind != ProblemKind::missing_key) return false;
  std::string siblings = parent_key.empty() ? "" : parent_key + ".";
  return any_in_range(siblings,
                      [&](const Problem& other) { return explains_missing_key(other, problem); });
}

// The most specific problems, one per field: errors at a field are dropped when a field below it
// also failed (an anyOf alternative that was not meant), key problems win over value problems.
std::vector<Problem> most_specific(const std::vector<SchemaViolation>& violations,
                                   const nlohmann::json& root, const SchemaWalk& walk) {
  std::map<std::string, Problem> by_path;
  for (const auto& violation : violations) {
    std::optional<Problem> problem = classify(violation, root);
    if (!problem) continue;
    std::string key = format_path(problem->path);
    auto [it, inserted] = by_path.emplace(key, *problem);
    if (!inserted && problem->kind > it->second.kind) it->second = *problem;
  }
  add_other_unknown_keys(by_path, root, walk);
  std::vector<Problem> out;
  for (const auto& [key, problem] : by_path) {
    if (!is_shadowed(by_path, key, problem)) out.push_back(problem);
  }
  return out;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& options) {
  std::string match = nearest_match(word, options);
  return match.empty() ? "" : fmt::format("did you mean '{}'?", match);
}

// Where a problem is shown: an unknown key at the key, a missing key at its mapping.
SourceLocation problem_location(const Problem& problem, const SourceMap& source_map) {
  std::string path = format_path(problem.path);
  if (problem.kind == ProblemKind::unknown_key) return source_map.locate(path, true);
  if (problem.kind == ProblemKind::missing_key) {
    FieldPath parent(problem.path.begin(), problem.path.end() - 1);
    SourceLocation where = source_map.locate(format_path(parent));
    where.path = source_map.shown_path(path);
    return where;
  }
  return source_map.locate(path);
}

// What is wrong, in words (the schema walk this needs is the costly part: done only for the
// problems shown).
std::string word_problem(const Problem& problem, const nlohmann::json& root,
                         const SchemaWalk& walk) {
  FieldPath parent(problem.path.begin(), problem.path.end() - (problem.path.empty() ? 0 : 1));
  auto with_hint = [](std::string text, const std::string& hint) {
    return hint.empty() ? text : text + " (" + hint + ")";
  };

  if (problem.kind == ProblemKind::unknown_key) {
    const std::string& key = problem.path.back().key;
    std::vector<std::string> known = walk.known_keys(walk.at(root, parent));
    std::string hint = did_you_mean(key, known);
    if (!known.empty()) {
      std::string list = fmt::format("known keys: {}", fmt::join(known, ", "));
      hint = hint.empty() ? list : hint + " " + list;
    }
    return with_hint("unknown key", hint);
  }
  if (problem.kind == ProblemKind::missing_key) {
    std::string expected = walk.describe(walk.at(root, problem.path));
    return with_hint(fmt::format("missing required key '{}'", problem.path.back().key),
                     "expected " + expected);
  }

  auto schemas = walk.at(root, problem.path);
  const nlohmann::json* node = &root;
  for (const auto& segment : problem.path) {
    if (segment.index && node->is_array() && *segment.index < node->size()) {
      node = &(*node)[*segment.index];
    } else if (!segment.index && node->is_object() && node->contains(segment.key)) {
      node = &(*node)[segment.key];
    } else {
      node = nullptr;
      break;
    }
  }
  std::string text = fmt::format("found {}, expected {}", node ? short_json(*node) : "nothing",
                                 walk.describe(schemas));
  std::string hint;
  if (node && node->is_string())
    hint = did_you_mean(node->get<std::string>(), walk.enum_values(schemas));
  return with_hint(text, hint);
}

}  // namespace

void validate_config(const ConfigDocument& doc) {
  validate_document(doc, "experiment.schema.json");
}

void validate_document(const ConfigDocument& doc, const std::string& schema_name) {
  const std::shared_ptr<const LoadedSchema> schema = cached_schema(schema_name);
  SchemaWalk walk(schema->json);
  if (doc.json.is_null()) {
    throw_user_error(doc.source_map.locate(""), "the config is empty",
                     "expected " + walk.describe(walk.at(doc.json, {})));
  }
  std::vector<SchemaViolation> violations = schema->compiled.violations(doc.json);
  if (violations.empty()) return;

  std::vector<std::pair<SourceLocation, Problem>> problems;
  for (auto& problem : most_specific(violations, doc.json, walk)) {
    problems.emplace_back(problem_location(problem, doc.source_map), std::move(problem));
  }
  // In file order, file by file (a config may include others); overrides (no line) first, as
  // the command line is read before the file.
  // Problems at one line (a block's field in every expanded layer) in layer order.
  auto file_order = [](const SourceLocation& where) {
    return std::make_tuple(where.line != 0, where.file, where.line, where.column);
  };
  auto segments = [](const Problem& problem) {
    std::vector<std::pair<std::size_t, std::string>> out;
    for (const auto& segment : problem.path)
      out.emplace_back(segment.index.value_or(0), segment.key);
    return out;
  };
  std::stable_sort(problems.begin(), problems.end(), [&](const auto& a, const auto& b) {
    auto a_where = file_order(a.first), b_where = file_order(b.first);
    if (a_where != b_where) return a_where < b_where;
    return segments(a.second) < segments(b.second);
  });
  std::string text;
  for (std::size_t i = 0; i < problems.size() && i < max_reported; ++i) {
    text += (i ? "\n" : "") + format_location(problems[i].first) +
            word_problem(problems[i].second, doc.json, walk);
  }
  if (problems.size() > max_reported) {
    text += fmt::format("\n(and {} more problems)", problems.size() - max_reported);
  }
  if (text.empty()) {  // only wrapper errors: say what valijson said rather than nothing
    text = format_location(doc.source_map.locate("")) + violations.front().description;
  }
  throw UserError(text);
}

}  // namespace runner
