// csv: files of `path,label` rows (train.csv, test.csv under dataset.root by default), paths
// relative to the CSV and inside the dataset root or the CSV's folder (unless
// dataset.allow_outside_root), labels as class names (classes: the sorted names of the training
// file) or integers (classes 0..max), a header row allowed; images decoded as image_folder
// decodes them.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <set>
#include <sstream>

#include "runner/data/error_location.h"
#include "runner/data/image_dataset.h"
#include "runner/data/image_files.h"
#include "runner/data/root_bounds.h"
#include "runner/util/files.h"

namespace runner {
namespace {

struct CsvRow {
  std::string path, label;
  int line = 0;
};

// One line's fields; double quotes may hold commas, "" is a quote.
std::vector<std::string> split_fields(const std::string& line) {
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

std::vector<CsvRow> read_rows(const std::filesystem::path& file) {
  std::istringstream in(
      read_regular_file(file, std::size_t{1} << 30, "a CSV file of path,label rows"));
  std::vector<CsvRow> rows;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::vector<std::string> fields = split_fields(line);
    if (fields.size() != 2 || fields[0].empty() || fields[1].empty()) {
      // The line is not echoed: a file named as a CSV may be anything (a secret's first line).
      throw_user_error(at_file(file),
                       fmt::format("line {}: found {} field(s), expected two: path,label", number,
                                   fields.size()),
                       "quote a path that holds a comma: \"a,b.png\",cat");
    }
    // A first row that names no image file is a header (path,label; filename,class; ...).
    if (rows.empty() && number == 1 && !has_image_extension(fields[0])) continue;
    rows.push_back({fields[0], fields[1], number});
  }
  if (rows.empty()) throw_user_error(at_file(file), "found no rows, expected path,label rows");
  return rows;
}

std::optional<int> as_integer(const std::string& text) {
  int value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

bool all_integers(const std::vector<CsvRow>& rows) {
  return std::all_of(rows.begin(), rows.end(),
                     [](const CsvRow& row) { return as_integer(row.label).has_value(); });
}

std::vector<std::string> classes_of(const std::filesystem::path& train_file) {
  const std::vector<CsvRow> rows = read_rows(train_file);
  if (all_integers(rows)) {
    int largest = 0;
    for (const CsvRow& row : rows) largest = std::max(largest, *as_integer(row.label));
    if (largest >= 100'000) {
      throw_user_error(at_file(train_file),
                       fmt::format("found label {}, expected class numbers below 100000", largest));
    }
    std::vector<std::string> names;
    for (int k = 0; k <= largest; ++k) names.push_back(std::to_string(k));
    return names;
  }
  std::set<std::string> names;
  for (const CsvRow& row : rows) names.insert(row.label);
  return {names.begin(), names.end()};
}

// A row's file must lie inside the dataset root or the CSV's folder, unless the config allows
// otherwise: a CSV from elsewhere could name any file the user may read.
void check_inside_root(const DatasetSpec& spec, const std::filesystem::path& file,
                       const CsvRow& row, RootBounds& bounds) {
  if (spec.files.allow_outside_root) return;
  const std::string why = bounds.escape(file.parent_path(), row.path);
  if (why.empty()) return;
  throw_user_error(at_file(file),
                   fmt::format("line {}: path '{}' leads outside the dataset root {} ({})",
                               row.line, row.path, spec.root, why),
                   "set dataset.allow_outside_root: true to read files outside it");
}

LabelledFiles labelled_files(const DatasetSpec& spec, const std::filesystem::path& file,
                             const std::vector<std::string>& classes) {
  LabelledFiles out{file.parent_path(), {}};
  RootBounds bounds({spec.root, file.parent_path()});
  for (const CsvRow& row : read_rows(file)) {
    check_inside_root(spec, file, row, bounds);
    auto known = std::find(classes.begin(), classes.end(), row.label);
    if (known == classes.end()) {
      throw_user_error(at_file(file),
                       fmt::format("line {}: found label '{}', expected one of the {} classes of "
                                   "the training file",
                                   row.line, row.label, classes.size()));
    }
    out.files.push_back({row.path, static_cast<std::int32_t>(known - classes.begin())});
  }
  return out;
}

// The rows a CSV holds, or 0 when it cannot be read (loading names the problem).
std::int64_t count_rows(const std::filesystem::path& file) {
  try {
    return static_cast<std::int64_t>(read_rows(file).size());
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace

RUNNER_DATASET_FORMAT(csv) {
  DatasetFormat format = image_files_format_base();
  format.read = [](const SettingsReader& settings, DatasetSpec& spec) {
    read_image_files_settings(settings, spec, "train.csv", "test.csv");
    spec.files.allow_outside_root = settings.flag("allow_outside_root", false);
  };
  format.keys.push_back("allow_outside_root");
  format.write = [](const DatasetSpec& spec, nlohmann::json& out) {
    write_image_files_settings(spec, out);
    out["allow_outside_root"] = spec.files.allow_outside_root;
  };
  format.class_names = [](const DatasetSpec& spec) {
    return classes_of(split_path(spec, spec.files.train));
  };
  format.planned_records = [](const DatasetSpec& spec) {
    const ImageShape image = spec.files.image;
    DatasetRecords records{count_rows(split_path(spec, spec.files.train)), 0,
                           std::int64_t{image.channels} * image.height * image.width};
    if (!spec.files.test_absent) records.test = count_rows(split_path(spec, spec.files.test));
    return records;
  };
  format.load = [](const DatasetSpec& spec) {
    const std::vector<std::string> classes = format_of(spec).class_names(spec);
    return load_image_splits(spec, classes, [&](const std::filesystem::path& file, bool) {
      return labelled_files(spec, file, classes);
    });
  };
  return format;
}

}  // namespace runner
