// Parsing CSV rows: fields (double quotes may hold commas, "" is a quote), each label's kind,
// the header decision, and the one kind every label of a file must have.
#include "runner/data/csv_rows.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <string_view>

#include "runner/data/error_location.h"
#include "runner/data/image_files.h"
#include "runner/util/files.h"

namespace runner {
namespace {

namespace fs = std::filesystem;

// One line's fields; double quotes may hold commas, "" is a quote.
std::vector<std::string> split_fields(std::string_view line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  for (auto& field : fields) {  // spaces around a field are not part of it
    field.erase(0, field.find_first_not_of(" \t"));
    field.erase(field.find_last_not_of(" \t\r") + 1);
  }
  return fields;
}

bool all_digits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The class number a label is ("7", "07"), or nullopt for a class name. A negative number or one
// of kMaxCsvClasses or more is an error naming the row.
std::optional<int> class_number(const fs::path& file, const CsvRow& row) {
  const std::string& label = row.label;
  if (label.starts_with('-') && all_digits(std::string_view(label).substr(1))) {
    throw_user_error(at_file(file), fmt::format("line {}: found label {}, expected a class number "
                                                "of 0 or more",
                                                row.line, label));
  }
  if (!all_digits(label)) return std::nullopt;
  int value = 0;
  auto [end, error] = std::from_chars(label.data(), label.data() + label.size(), value);
  if (error != std::errc() || value >= kMaxCsvClasses) {
    throw_user_error(at_file(file),
                     fmt::format("line {}: found label {}, expected class numbers below {}",
                                 row.line, label, kMaxCsvClasses),
                     "label k is the model's output k: is this column an id, not a class?");
  }
  return value;
}

// The rows of the file's text, a header included.
std::vector<CsvRow> split_rows(const fs::path& file, std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a UTF-8 byte order mark
  std::vector<CsvRow> rows;
  for (int number = 1; !text.empty(); ++number) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    if (line.find('\0') != std::string_view::npos) {  // a path would end there: another file
      throw_user_error(at_file(file), fmt::format("line {}: holds a NUL byte, which no path or "
                                                  "label may hold",
                                                  number));
    }
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    std::vector<std::string> fields = split_fields(line);
    if (fields.size() != 2 || fields[0].empty() || fields[1].empty()) {
      // The line is not echoed: a file named as a CSV may be anything (a secret's first line).
      throw_user_error(at_file(file),
                       fmt::format("line {}: found {} field(s), expected two: path,label", number,
                                   fields.size()),
                       "quote a path that holds a comma: \"a,b.png\",cat");
    }
    rows.push_back({std::move(fields[0]), std::move(fields[1]), number, 0});
  }
  return rows;
}

// A header is a first row that nothing shows to be data: its label is no label of the rows
// below, and its path names no file and no image file (a missing "x.png" is data, to be named).
bool is_header(const fs::path& file, const std::vector<CsvRow>& rows) {
  const CsvRow& first = rows.front();
  if (all_digits(first.label) ||
      (first.label.starts_with('-') && all_digits(std::string_view(first.label).substr(1)))) {
    return false;
  }
  const bool used_below = std::any_of(rows.begin() + 1, rows.end(),
                                      [&](const CsvRow& row) { return row.label == first.label; });
  std::error_code error;
  return !used_below && !has_image_extension(first.path) &&
         !fs::exists(fs::symlink_status(file.parent_path() / first.path, error));
}

}  // namespace

CsvRows read_csv_rows(const fs::path& file) {
  std::vector<CsvRow> rows = split_rows(
      file, read_regular_file(file, std::size_t{1} << 30, "a CSV file of path,label rows"));
  if (!rows.empty() && is_header(file, rows)) rows.erase(rows.begin());
  if (rows.empty()) throw_user_error(at_file(file), "found no rows, expected path,label rows");
  CsvRows out{std::move(rows), false};
  const CsvRow* numbered = nullptr;  // the first row of each kind
  const CsvRow* named = nullptr;
  for (CsvRow& row : out.rows) {
    const std::optional<int> number = class_number(file, row);
    row.number = number.value_or(0);
    if (number && !numbered) numbered = &row;
    if (!number && !named) named = &row;
    if (numbered && named) {
      const CsvRow& later = numbered->line > named->line ? *numbered : *named;
      const CsvRow& earlier = &later == numbered ? *named : *numbered;
      throw_user_error(
          at_file(file),
          fmt::format("line {}: found label '{}', a class {}, but line {} has the class {} '{}'",
                      later.line, later.label, &later == numbered ? "number" : "name", earlier.line,
                      &earlier == numbered ? "number" : "name", earlier.label),
          "the labels of a file are either all class numbers (0, 1, 2, ...) or all class names");
    }
  }
  out.numbered = numbered != nullptr;
  return out;
}

}  // namespace runner
