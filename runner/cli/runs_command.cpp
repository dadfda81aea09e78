// `runner runs`: the runs below folders as one table, filtered (--where), sorted, in columns.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <set>

#include "runner/cli/commands.h"
#include "runner/runs/run_index.h"
#include "runner/runs/run_query.h"
#include "runner/util/errors.h"

namespace runner {
namespace {

namespace fs = std::filesystem;

// The table's columns when --columns is not given: those of these that some row has, then the
// fields --where and --sort name.
const std::vector<std::string> kDefaultColumns = {"run",
                                                  "status",
                                                  "epochs",
                                                  "test_accuracy",
                                                  "val_accuracy",
                                                  "val_ema_accuracy",
                                                  "training.optimizer.lr",
                                                  "training.batch_size",
                                                  "model.width",
                                                  "images_per_second",
                                                  "wall_seconds"};

std::string sort_field(const std::string& key) {
  return !key.empty() && (key[0] == '-' || key[0] == '+') ? key.substr(1) : key;
}

bool any_row_has(const std::vector<RunRow>& rows, const std::string& field) {
  return std::any_of(rows.begin(), rows.end(),
                     [&](const RunRow& row) { return !row_field(row, field).is_null(); });
}

std::vector<std::string> columns_of(const RunsOptions& options, const RunQuery* query,
                                    const std::vector<RunRow>& rows) {
  std::vector<std::string> columns;
  auto add = [&](const std::string& field) {
    if (std::find(columns.begin(), columns.end(), field) == columns.end()) columns.push_back(field);
  };
  if (!options.columns.empty()) {
    for (const std::string& field : options.columns) {
      if (!rows.empty() && !any_row_has(rows, field)) {
        std::vector<std::string> known;
        for (const RunRow& row : rows) {
          for (const auto& [name, value] : row) known.push_back(name);
        }
        const std::string closest = nearest_match(field, known);
        throw UserError(fmt::format(
            "--columns: no run has the field '{}'{}; fields are config paths "
            "(training.optimizer.lr), report fields (status, epochs, images_per_second), the kept "
            "model's figures (val_accuracy) and tags.NAME",
            field, closest.empty() ? "" : fmt::format(" (did you mean '{}'?)", closest)));
      }
      add(field);
    }
    return columns;
  }
  for (const std::string& field : kDefaultColumns) {
    if (field == "run" || any_row_has(rows, field)) add(field);
  }
  if (query) {
    for (const std::string& field : query->fields()) {
      if (any_row_has(rows, field)) add(field);
    }
  }
  for (const std::string& key : options.sort) {
    if (any_row_has(rows, sort_field(key))) add(sort_field(key));
  }
  return columns;
}

// -1, 0, 1 for two values of one field: numbers as numbers, the rest as text.
int compare_values(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_number() && b.is_number()) {
    const double x = a.get<double>(), y = b.get<double>();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const std::string x = a.is_string() ? a.get<std::string>() : a.dump();
  const std::string y = b.is_string() ? b.get<std::string>() : b.dump();
  return x < y ? -1 : x > y ? 1 : 0;
}

void sort_rows(std::vector<RunRow>& rows, const std::vector<std::string>& keys) {
  std::stable_sort(rows.begin(), rows.end(), [&](const RunRow& a, const RunRow& b) {
    for (const std::string& key : keys) {
      const std::string field = sort_field(key);
      const nlohmann::json &x = row_field(a, field), &y = row_field(b, field);
      if (x.is_null() != y.is_null()) return y.is_null();  // missing values last, either way
      if (x.is_null()) continue;
      const int c = compare_values(x, y);
      if (c != 0) return key[0] == '-' ? c > 0 : c < 0;
    }
    return false;
  });
}

std::string cell(const nlohmann::json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float()) return fmt::format("{:.6g}", value.get<double>());
  return value.dump();
}

std::string csv_cell(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

void print_table(const std::vector<RunRow>& rows, const std::vector<std::string>& columns) {
  std::vector<std::size_t> widths;
  for (const std::string& column : columns) widths.push_back(column.size());
  std::vector<std::vector<std::string>> cells;
  for (const RunRow& row : rows) {
    std::vector<std::string>& line = cells.emplace_back();
    for (std::size_t c = 0; c < columns.size(); ++c) {
      line.push_back(cell(row_field(row, columns[c])));
      widths[c] = std::max(widths[c], line.back().size());
    }
  }
  auto print_line = [&](const std::vector<std::string>& line) {
    std::string text;
    for (std::size_t c = 0; c < line.size(); ++c) {
      text += c + 1 == line.size() ? line[c] : fmt::format("{:<{}}  ", line[c], widths[c]);
    }
    std::cout << text << "\n";
  };
  print_line(columns);
  for (const auto& line : cells) print_line(line);
}

}  // namespace

int runs_command(const RunsOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<fs::path> folders = options.folders;
  if (folders.empty()) folders.push_back("results");
  for (const fs::path& folder : folders) {
    if (!fs::is_directory(folder)) {
      throw UserError(fmt::format("{}: no such folder (expected a folder of runs, e.g. results)",
                                  folder.string()));
    }
  }
  std::optional<RunQuery> query;
  if (!options.where.empty()) query.emplace(options.where);
  FoundRuns found = find_runs(folders, options.no_cache ? fs::path() : default_runs_cache_folder());
  for (const std::string& warning : found.warnings) std::cerr << warning << "\n";
  std::vector<RunRow> rows;
  for (RunRow& row : found.rows) {
    if (!query || query->matches(row)) rows.push_back(std::move(row));
  }
  const std::size_t matching = rows.size();
  sort_rows(rows, options.sort);
  if (options.limit > 0 && rows.size() > static_cast<std::size_t>(options.limit)) {
    rows.resize(static_cast<std::size_t>(options.limit));
  }
  const std::vector<std::string> columns = columns_of(options, query ? &*query : nullptr, rows);
  if (options.format == "json") {
    nlohmann::json out = nlohmann::json::array();
    for (const RunRow& row : rows) {
      nlohmann::json& entry = out.emplace_back(nlohmann::json::object());
      for (const std::string& column : columns) entry[column] = row_field(row, column);
    }
    std::cout << out.dump(2) << "\n";
  } else if (options.format == "csv") {
    std::string header;
    for (const std::string& column : columns)
      header += (header.empty() ? "" : ",") + csv_cell(column);
    std::cout << header << "\n";
    for (const RunRow& row : rows) {
      std::string line;
      for (std::size_t c = 0; c < columns.size(); ++c) {
        line += (c ? "," : "") + csv_cell(cell(row_field(row, columns[c])));
      }
      std::cout << line << "\n";
    }
  } else {
    print_table(rows, columns);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cerr << fmt::format(
      "{} of {} run(s) match{}; {} report(s) read, {} from the index, {:.2f} s\n", matching,
      found.rows.size(), rows.size() < matching ? fmt::format(", {} shown", rows.size()) : "",
      found.read, found.cached, seconds);
  return 0;
}

}  // namespace runner
