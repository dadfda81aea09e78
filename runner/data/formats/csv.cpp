// csv: files of `path,label` rows (train.csv, test.csv under dataset.root by default, read by
// csv_rows.h), paths relative to the CSV and inside the dataset root or the CSV's folder (unless
// dataset.allow_outside_root), labels as class names (classes: the sorted names of the training
// file) or class numbers (classes 0..max, label k is output k); images decoded as image_folder
// decodes them.
#include <fmt/format.h>

#include <algorithm>

#include "runner/data/csv_rows.h"
#include "runner/data/error_location.h"
#include "runner/data/image_dataset.h"
#include "runner/data/root_bounds.h"

namespace runner {
namespace {

// The classes of the whole training file, whatever dataset.train_limit keeps.
std::vector<std::string> classes_of(const std::filesystem::path& train_file) {
  CsvRows train = read_csv_rows(train_file, 0);
  if (!train.numbered) return std::move(train.names);
  std::vector<std::string> names;
  for (int k = 0; k <= train.largest_number; ++k) names.push_back(std::to_string(k));
  return names;
}

// Class numbers are "0".."N" (a named file has no label of digits alone: those are numbers).
bool numbered_classes(const std::vector<std::string>& classes) {
  return !classes.empty() && classes.front() == "0";
}

// Where the class count of the training file comes from, for a model of another output count:
// its largest class number (an id column taken for labels gives 100,000 outputs), or its names.
std::string classes_origin_of(const std::filesystem::path& train_file) {
  const CsvRows train = read_csv_rows(train_file);
  if (!train.numbered) {
    return fmt::format("{}'s labels are class names, one class per name", train_file.string());
  }
  const CsvRow* largest = &train.rows.front();
  for (const CsvRow& row : train.rows) largest = row.number > largest->number ? &row : largest;
  return fmt::format("{}'s largest class number is {} (line {}), and label k is output k",
                     train_file.string(), largest->number, largest->line);
}

// The label of `row` of `file`: its class number (label k is output k), or its name's place among
// the training file's classes; a label of the other kind than training's, or a class the
// training file lacks, is an error.
std::int32_t label_of(const std::filesystem::path& file, const CsvRows& rows, const CsvRow& row,
                      const std::vector<std::string>& classes) {
  const bool numbered = numbered_classes(classes);
  if (rows.numbered != numbered) {
    throw_user_error(at_file(file),
                     fmt::format("line {}: found label '{}', a class {}, but the training file's "
                                 "labels are class {}",
                                 row.line, row.label, rows.numbered ? "number" : "name",
                                 numbered ? "numbers" : "names"));
  }
  const std::string no_output =
      "the classes are the training file's: give it rows of that class, "
      "or correct the label";
  if (numbered && static_cast<std::size_t>(row.number) < classes.size()) return row.number;
  if (numbered) {  // "07" is 7: said as written when it is written otherwise
    const std::string written =
        row.label == std::to_string(row.number) ? "" : fmt::format(" (written '{}')", row.label);
    throw_user_error(at_file(file),
                     fmt::format("line {}: found class number {}{}, but the training file's "
                                 "class numbers go up to {}",
                                 row.line, row.number, written, classes.size() - 1),
                     no_output);
  }
  auto known = std::find(classes.begin(), classes.end(), row.label);
  if (known == classes.end()) {
    throw_user_error(at_file(file),
                     fmt::format("line {}: found label '{}', which is none of the {} class names "
                                 "of the training file",
                                 row.line, row.label, classes.size()),
                     no_output);
  }
  return static_cast<std::int32_t>(known - classes.begin());
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

// The first `max_files` rows of `file` as labelled files (rows past them are parsed, not kept).
LabelledFiles labelled_files(const DatasetSpec& spec, const std::filesystem::path& file,
                             const std::vector<std::string>& classes, std::size_t max_files) {
  LabelledFiles out{file.parent_path(), {}};
  RootBounds bounds({spec.root, file.parent_path()});
  const CsvRows rows = read_csv_rows(file, max_files);
  for (const CsvRow& row : rows.rows) {
    check_inside_root(spec, file, row, bounds);
    out.files.push_back({row.path, label_of(file, rows, row, classes)});
  }
  return out;
}

// labelled_files for the training file's classes.
ListSplit csv_lister(const DatasetSpec& spec, std::vector<std::string> classes) {
  return [&spec, classes = std::move(classes)](const std::filesystem::path& file, bool,
                                               std::size_t max_files) {
    return labelled_files(spec, file, classes, max_files);
  };
}

std::int64_t count_rows(const std::filesystem::path& file) {
  return static_cast<std::int64_t>(read_csv_rows(file, 0).total);
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
  format.classes_origin = [](const DatasetSpec& spec) {
    return classes_origin_of(split_path(spec, spec.files.train));
  };
  format.planned_records = [](const DatasetSpec& spec) {
    return image_files_records(spec, count_rows);
  };
  // validate: every split's rows as loading reads them (paths inside the root, labels of the
  // training file's kind), without reading an image; a missing image is loading's to name.
  format.check_files = [](const DatasetSpec& spec) {
    const std::vector<std::string> classes = format_of(spec).class_names(spec);
    list_image_splits(spec, csv_lister(spec, classes));
    return std::vector<std::string>{};
  };
  format.training_labels = [](const DatasetSpec& spec) {
    const std::vector<std::string> classes = format_of(spec).class_names(spec);
    return labels_of(
        labelled_files(spec, split_path(spec, spec.files.train), classes, files_to_list(0)));
  };
  format.load = [](const DatasetSpec& spec) {
    const std::vector<std::string> classes = format_of(spec).class_names(spec);
    return load_image_splits(spec, classes, csv_lister(spec, classes));
  };
  return format;
}

}  // namespace runner
