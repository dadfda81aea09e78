// Parsing CSV rows: fields (double quotes may hold commas, "" is a quote), each label's kind,
// the header decision, and the one kind every label of a file must have, in one pass over the
// lines: what needs the whole file (is the first row a header? which kinds?) is decided at its
// end from a few remembered rows, and the errors are the ones a whole-file read gave.
#include "runner/data/csv_rows.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <optional>
#include <set>
#include <string_view>

#include "runner/data/error_location.h"
#include "runner/data/image_files.h"
#include "runner/util/line_reader.h"

namespace runner {
namespace {

namespace fs = std::filesystem;

// Splits a line into fields: the first two into `path` and `label` (strings reused from row to
// row: no allocation per row), the rest only counted; double quotes may hold commas, "" is a
// quote, and spaces around a field are not part of it. Returns the number of fields.
std::size_t split_fields(std::string_view line, std::string& path, std::string& label) {
  std::string rest;
  std::size_t count = 1;
  std::string* field = &path;
  path.clear();
  label.clear();
  auto next_field = [&] {
    ++count;
    field = count == 2 ? &label : &rest;
    field->clear();
  };
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (!quoted && c != '"' && c != ',') {  // a run of plain characters at once
      std::size_t end = i;
      while (end < line.size() && line[end] != ',' && line[end] != '"') ++end;
      field->append(line.substr(i, end - i));
      i = end - 1;
    } else if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      *field += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      next_field();
    } else {
      *field += c;
    }
  }
  for (std::string* text : {&path, &label}) {
    text->erase(0, text->find_first_not_of(" \t"));
    text->erase(text->find_last_not_of(" \t\r") + 1);
  }
  return count;
}

bool all_digits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool negative_number(std::string_view label) {
  return label.starts_with('-') && all_digits(label.substr(1));
}

// The class number a label is ("7", "07"), or nullopt for a class name. A negative number or one
// of kMaxCsvClasses or more is no class: `problem` then says why.
std::optional<int> class_number(const CsvRow& row, std::string& problem) {
  const std::string& label = row.label;
  if (negative_number(label)) {
    problem = fmt::format("line {}: found label {}, expected a class number of 0 or more", row.line,
                          label);
    return std::nullopt;
  }
  if (!all_digits(label)) return std::nullopt;
  int value = 0;
  auto [end, error] = std::from_chars(label.data(), label.data() + label.size(), value);
  if (error != std::errc() || value >= kMaxCsvClasses) {
    problem = fmt::format(
        "line {}: found label {}, expected class numbers below {} (label k is the model's output "
        "k: is this column an id, not a class?)",
        row.line, label, kMaxCsvClasses);
    return std::nullopt;
  }
  return value;
}

// Reads the next row of the file into `row`, blank lines passed over; false at its end. A NUL
// byte or a line that is not two fields is a UserError naming the row.
bool next_row(LineReader& lines, const fs::path& file, CsvRow& row) {
  std::string_view line;
  while (lines.next(line)) {
    if (lines.line_number() >= INT_MAX) {
      throw_user_error(at_file(file), fmt::format("found more than {} lines, expected a list of "
                                                  "path,label rows",
                                                  INT_MAX - 1));
    }
    const int number = static_cast<int>(lines.line_number());
    if (number == 1 && line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);  // a UTF-8 BOM
    if (line.find('\0') != std::string_view::npos) {  // a path would end there: another file
      throw_user_error(at_file(file), fmt::format("line {}: holds a NUL byte, which no path or "
                                                  "label may hold",
                                                  number));
    }
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::size_t fields = split_fields(line, row.path, row.label);
    if (fields != 2 || row.path.empty() || row.label.empty()) {
      // The line is not echoed: a file named as a CSV may be anything (a secret's first line).
      throw_user_error(
          at_file(file),
          fmt::format("line {}: found {} field(s), expected two: path,label", number, fields),
          "quote a path that holds a comma: \"a,b.png\",cat");
    }
    row.line = number;
    row.number = 0;
    return true;
  }
  return false;
}

// The kinds of a file's labels as its data rows come, in file order: the first row of each kind,
// and the first label that looks like a number but is no class.
struct LabelKinds {
  std::optional<CsvRow> numbered, named;
  std::string bad_number;  // its problem
  int bad_line = 0;        // 0: none

  // Adds the next data row; its class number, or 0.
  int see(const CsvRow& row) {
    std::string problem;
    const std::optional<int> number = class_number(row, problem);
    if (!problem.empty()) {
      if (bad_line == 0) bad_line = row.line, bad_number = std::move(problem);
    } else if (number) {
      if (!numbered) numbered = CsvRow{"", row.label, row.line, *number};
    } else if (!named) {
      named = CsvRow{"", row.label, row.line, 0};
    }
    return number.value_or(0);
  }
  // The rows of `later`, which come after every row seen so far.
  void append(const LabelKinds& later) {
    if (!numbered) numbered = later.numbered;
    if (!named) named = later.named;
    if (bad_line == 0) bad_line = later.bad_line, bad_number = later.bad_number;
  }
  // The error a read of the rows in order meets first: a label that is no class, or the row at
  // which both kinds have been seen.
  void check(const fs::path& file) const {
    const int mixed_at = numbered && named ? std::max(numbered->line, named->line) : 0;
    if (bad_line != 0 && (mixed_at == 0 || bad_line < mixed_at)) {
      throw_user_error(at_file(file), bad_number);
    }
    if (mixed_at == 0) return;
    const bool number_later = numbered->line > named->line;
    const CsvRow& later = number_later ? *numbered : *named;
    const CsvRow& earlier = number_later ? *named : *numbered;
    throw_user_error(
        at_file(file),
        fmt::format("line {}: found label '{}', a class {}, but line {} has the class {} '{}'",
                    later.line, later.label, number_later ? "number" : "name", earlier.line,
                    number_later ? "name" : "number", earlier.label),
        "the labels of a file are either all class numbers (0, 1, 2, ...) or all class names");
  }
};

// The rows below the first, as one pass sees them: the first `keep` kept, the classes their
// labels name, and whether any has the first row's label (which makes the first row data).
struct RowsBelow {
  std::vector<CsvRow> kept;
  std::size_t count = 0;
  LabelKinds kinds;
  int largest_number = 0;
  std::set<std::string> names;
  bool has_first_label = false;
};

RowsBelow read_rows_below(LineReader& lines, const fs::path& file, const CsvRow& first,
                          std::size_t keep) {
  RowsBelow below;
  for (CsvRow row; next_row(lines, file, row);) {
    ++below.count;
    row.number = below.kinds.see(row);
    below.largest_number = std::max(below.largest_number, row.number);
    if (!all_digits(row.label) && !negative_number(row.label)) below.names.insert(row.label);
    below.has_first_label = below.has_first_label || row.label == first.label;
    if (below.kept.size() < keep) below.kept.push_back(row);
  }
  return below;
}

// A header is a first row that nothing shows to be data: its label is no label of the rows
// below, and its path names no file and no image file (a missing "x.png" is data, to be named).
bool is_header(const fs::path& file, const CsvRow& first, const RowsBelow& below) {
  if (all_digits(first.label) || negative_number(first.label) || below.has_first_label) {
    return false;
  }
  std::error_code error;
  return !has_image_extension(first.path) &&
         !fs::exists(fs::symlink_status(file.parent_path() / first.path, error));
}

}  // namespace

CsvRows read_csv_rows(const fs::path& file, std::size_t max_rows) {
  LineReader lines(file, kMaxCsvLineBytes, "a CSV file of path,label rows");
  CsvRow first;
  if (!next_row(lines, file, first)) {
    throw_user_error(at_file(file), "found no rows, expected path,label rows");
  }
  RowsBelow below = read_rows_below(lines, file, first, max_rows);
  const bool header = is_header(file, first, below);
  if (header && below.count == 0) {
    throw_user_error(at_file(file), "found no rows, expected path,label rows");
  }
  LabelKinds kinds;
  CsvRows out;
  if (!header) {
    first.number = kinds.see(first);
    if (max_rows > 0) out.rows.push_back(std::move(first));
  }
  kinds.append(below.kinds);
  kinds.check(file);
  for (CsvRow& row : below.kept) {
    if (out.rows.size() == max_rows) break;
    out.rows.push_back(std::move(row));
  }
  out.numbered = kinds.numbered.has_value();
  out.total = below.count + (header ? 0 : 1);
  out.largest_number = std::max(below.largest_number, kinds.numbered ? kinds.numbered->number : 0);
  out.names.assign(below.names.begin(), below.names.end());
  if (!header && kinds.named && !below.names.contains(kinds.named->label)) {
    out.names.insert(std::lower_bound(out.names.begin(), out.names.end(), kinds.named->label),
                     kinds.named->label);
  }
  return out;
}

}  // namespace runner
