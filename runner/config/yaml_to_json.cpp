// YAML → JSON conversion with yaml-cpp; scalars typed by the YAML 1.2 core schema's rules.
#include "runner/config/yaml_to_json.h"

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <sstream>
#include <vector>

#include "runner/config/config_limits.h"
#include "runner/config/field_path.h"
#include "runner/util/utf8.h"

namespace runner {
namespace {

int one_based(int zero_based) {
  return zero_based < 0 ? 0 : zero_based + 1;
}

// NaN, infinity, or a literal too large for a double (a 400-digit integer): never a valid
// setting, and JSON would store it as null.
std::string non_finite_problem(const std::string& text) {
  bool spelt =
      text.find_first_of(".") != std::string::npos && text.find_first_of("nN") != std::string::npos;
  std::string shown = text.size() > 24
                          ? fmt::format("{}... ({} characters)", text.substr(0, 16), text.size())
                          : text;
  return fmt::format(
      "found {}, expected a finite number{}", shown,
      spelt ? " (NaN and infinity are not accepted)" : " (this one is out of range)");
}

// Where a problem is: the file's line and column, or for a value given on the command line
// (`root_path` set, `file` the option) the option and the field, and the line within the value
// when it has several; never a line of a file the value is not in.
[[noreturn]] void fail_at(const std::string& file, const std::string& root_path,
                          const YAML::Mark& mark, const std::string& problem,
                          const std::string& hint = "") {
  if (root_path.empty()) {
    throw_user_error({file, "", one_based(mark.line), one_based(mark.column)}, problem, hint);
  }
  throw_user_error({file, root_path, 0, 0},
                   mark.line > 0
                       ? fmt::format("{} (on line {} of the value)", problem, one_based(mark.line))
                       : problem,
                   hint);
}

struct Converter {
  const std::string& file;
  SourceMap& source_map;
  bool positions = true;  // messages give line:column (false for a command-line value)
  // Values made so far: an alias is copied where it is used, so a few lines of nested aliases
  // (a "billion laughs") would otherwise expand into gigabytes.
  mutable std::size_t values = 0;

  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& path,
                         const std::string& problem) const {
    if (!positions) throw_user_error({file, path, 0, 0}, problem);
    throw_user_error({file, path, one_based(mark.line), one_based(mark.column)}, problem);
  }

  nlohmann::json scalar(const YAML::Node& node, const std::string& path) const {
    const std::string& tag = node.Tag();
    const std::string& text = node.Scalar();
    if (text.size() > limits::max_string_length) {
      fail(node.Mark(), path,
           fmt::format("found a text of {} characters, expected at most {}", text.size(),
                       limits::max_string_length));
    }
    // An escape such as "\ud800" decodes to bytes that are not UTF-8 (JSON could not hold them).
    if (first_invalid_utf8(text)) fail(node.Mark(), path, "found text that is not valid UTF-8");
    // "!" marks a quoted or block scalar: always a string. So does an explicit !!str.
    if (tag == "!" || tag == "tag:yaml.org,2002:str") return text;
    nlohmann::json value = plain_scalar_to_json(text);
    if (value.is_number_float() && !std::isfinite(value.get<double>())) {
      fail(node.Mark(), path, non_finite_problem(text));
    }
    return value;
  }

  void count_value(const YAML::Node& node, const std::string& path, int depth) const {
    if (++values > limits::max_values) {
      fail(node.Mark(), path,
           fmt::format("the document holds more than {} values (YAML aliases are expanded "
                       "where they are used), expected a config of a few hundred",
                       limits::max_values));
    }
    if (depth > limits::max_depth) {
      fail(node.Mark(), path,
           fmt::format("nested more than {} levels deep, expected a config's few levels",
                       limits::max_depth));
    }
  }

  nlohmann::json convert(const YAML::Node& node, const std::string& path, int depth = 0) const {
    count_value(node, path, depth);
    switch (node.Type()) {
      case YAML::NodeType::Null:
      case YAML::NodeType::Undefined:
        return nullptr;
      case YAML::NodeType::Scalar:
        return scalar(node, path);
      case YAML::NodeType::Sequence: {
        nlohmann::json out = nlohmann::json::array();
        for (std::size_t i = 0; i < node.size(); ++i) {
          std::string child = item_path(path, i);
          const YAML::Node item = node[i];
          record(child, item.Mark(), item.Mark());
          out.push_back(convert(item, child, depth + 1));
        }
        return out;
      }
      case YAML::NodeType::Map: {
        nlohmann::json out = nlohmann::json::object();
        for (const auto& entry : node) {
          if (!entry.first.IsScalar()) fail(entry.first.Mark(), path, "a key must be a plain word");
          std::string key = entry.first.Scalar();
          if (first_invalid_utf8(key)) {
            fail(entry.first.Mark(), path, "found a key that is not valid UTF-8");
          }
          if (key.size() > limits::max_key_length) {
            fail(entry.first.Mark(), path,
                 fmt::format("found a key of {} characters, expected at most {}", key.size(),
                             limits::max_key_length));
          }
          std::string child = child_path(path, key);
          if (out.contains(key)) {
            const SourceOrigin* first = source_map.find(child);
            fail(entry.first.Mark(), child,
                 fmt::format("duplicate key '{}' (first given on line {}{})", key,
                             first ? first->key_line : 0, positions ? "" : " of the value"));
          }
          // A null value (`key:`) has no useful mark of its own: point at the key.
          YAML::Mark value_mark = entry.second.IsNull() ? entry.first.Mark() : entry.second.Mark();
          record(child, value_mark, entry.first.Mark(), entry.second.Tag() == "!replace");
          out[key] = convert(entry.second, child, depth + 1);
        }
        return out;
      }
    }
    return nullptr;
  }

  void record(const std::string& path, const YAML::Mark& value, const YAML::Mark& key,
              bool replace = false) const {
    SourceOrigin origin;
    origin.replace = replace;
    origin.line = one_based(value.line);
    origin.column = one_based(value.column);
    origin.key_line = one_based(key.line);
    origin.key_column = one_based(key.column);
    source_map.add(path, origin);
  }
};

// Refuses a stream of more than one document (yaml-cpp's Load reads the first and drops the rest
// without a word). Asks the parser for three documents at most: yaml-cpp 0.7's LoadAll loops for
// ever, allocating, on some malformed streams (a stray ',' where a document should start parses
// as an endless run of empty documents that consume nothing, jbeder/yaml-cpp#1319).
void refuse_more_documents(const std::string& text, const std::string& file,
                           const std::string& root_path) {
  class DocumentStarts : public YAML::EventHandler {
   public:
    std::vector<YAML::Mark> marks;
    void OnDocumentStart(const YAML::Mark& mark) override { marks.push_back(mark); }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                    YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
  } starts;
  std::istringstream stream(text);
  YAML::Parser parser(stream);
  for (int document = 0; document < 3 && parser.HandleNextDocument(starts); ++document) {
  }
  const std::vector<YAML::Mark>& marks = starts.marks;
  for (std::size_t i = 1; i < marks.size(); ++i) {
    if (marks[i].pos != marks[i - 1].pos) continue;
    const auto at = static_cast<std::size_t>(std::max(marks[i].pos, 0));
    const bool printable = at < text.size() && text[at] > ' ' && text[at] < 0x7f;
    fail_at(file, root_path, marks[i],
            printable ? fmt::format("malformed YAML: a document cannot start with '{}'", text[at])
                      : std::string("malformed YAML: no document can be read from here"),
            "remove the stray character");
  }
  if (marks.size() >= 2) {
    fail_at(file, root_path, marks[1],
            "found a second YAML document (after a '---' or '...' line), expected one",
            "remove the '---' line and what follows it, or merge the documents");
  }
}

// A value given on the command line is one YAML value: a line of it that starts with a document
// marker ('---' or '...') would begin another document or end this one (`name=---` read as an
// empty document, null), so it is refused naming the option, not a line of a config file.
void refuse_document_markers(const std::string& text, const std::string& option,
                             const std::string& root_path) {
  int line = 1;
  for (std::size_t start = 0; start <= text.size(); ++line) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view row = std::string_view(text).substr(start, end - start);
    const bool marker = (row.rfind("---", 0) == 0 || row.rfind("...", 0) == 0) &&
                        (row.size() == 3 || row[3] == ' ' || row[3] == '\t' || row[3] == '\r');
    if (marker) {
      throw_user_error({option, root_path, 0, 0},
                       fmt::format("found the YAML document marker '{}' on line {} of the value, "
                                   "expected one value",
                                   row.substr(0, 3), line),
                       "quote a text that starts with '---' or '...'");
    }
    start = end + 1;
  }
}

}  // namespace

nlohmann::json yaml_to_json(const std::string& text, const std::string& file, SourceMap& source_map,
                            const std::string& root_path) {
  // UTF-8 only, and no NUL: leading NULs make yaml-cpp read the text as UTF-16 or UTF-32.
  std::optional<std::size_t> bad = first_invalid_utf8(text);
  if (std::size_t nul = text.find('\0'); nul != std::string::npos && (!bad || nul < *bad))
    bad = nul;
  if (bad) {
    auto [line, column] = line_and_column(text, *bad);
    YAML::Mark mark;
    mark.line = line - 1;
    mark.column = column - 1;
    fail_at(file, root_path, mark,
            fmt::format("found the byte 0x{:02x}, which is not UTF-8 text",
                        static_cast<unsigned char>(text[*bad])),
            root_path.empty() ? "save the file as UTF-8" : "");
  }
  if (!root_path.empty()) refuse_document_markers(text, file, root_path);
  YAML::Node root;
  try {
    root = YAML::Load(text);
    refuse_more_documents(text, file, root_path);
  } catch (const YAML::DeepRecursion& error) {
    // yaml-cpp's own message for this is "bad file".
    fail_at(file, root_path, error.mark,
            fmt::format("nested more than {} levels deep (the YAML parser stopped at {}), "
                        "expected a config's few levels",
                        limits::max_depth, error.depth()));
  } catch (const YAML::Exception& error) {
    fail_at(file, root_path, error.mark, "malformed YAML: " + error.msg);
  }
  Converter converter{file, source_map, root_path.empty()};
  SourceOrigin top;
  top.line = 1;
  top.column = 1;
  source_map.add("", top);
  try {
    return converter.convert(root, root_path);
  } catch (const YAML::Exception& error) {
    fail_at(file, root_path, error.mark, "malformed YAML: " + error.msg);
  }
}

}  // namespace runner
