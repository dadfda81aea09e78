// A run's page: accuracy per class and the confusion matrix as a heat map.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "runner/html/html_table.h"
#include "runner/html/html_text.h"
#include "runner/html/json_fields.h"
#include "runner/html/run_sections.h"
#include "runner/util/figure_text.h"

namespace runner {
namespace {

using nlohmann::json;

// Shaded by the share of the true class's images in the cell: the diagonal is the recall.
TableCell heat_cell(double count, double row_total) {
  TableCell cell = number_cell(count, grouped_digits(count));
  const double share = row_total > 0 ? count / row_total : 0;
  if (share > 0) {
    cell.style = fmt::format("background: rgba(31, 119, 180, {:.3f}){}", 0.08 + 0.92 * share,
                             share > 0.55 ? "; color: #fff" : "");
  }
  return cell;
}

std::vector<std::string> class_names(const json& metrics, std::size_t count) {
  std::vector<std::string> names;
  const json& listed = field(metrics, "/classes");
  for (std::size_t k = 0; k < count; ++k) {
    names.push_back(listed.is_array() && k < listed.size() && listed[k].is_string()
                        ? listed[k].get<std::string>()
                        : fmt::format("class {}", k));
  }
  return names;
}

// The largest off-diagonal cells: which classes are taken for which.
std::string most_confused(const json& matrix, const std::vector<std::string>& names) {
  struct Pair {
    double count;
    std::size_t truth, predicted;
  };
  std::vector<Pair> pairs;
  for (std::size_t t = 0; t < matrix.size() && t < names.size(); ++t) {
    if (!matrix[t].is_array()) continue;
    for (std::size_t p = 0; p < matrix[t].size() && p < names.size(); ++p) {
      if (t != p && matrix[t][p].is_number() && matrix[t][p].get<double>() > 0)
        pairs.push_back({matrix[t][p].get<double>(), t, p});
    }
  }
  std::sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) {
    return a.count > b.count || (a.count == b.count && a.truth < b.truth);
  });
  if (pairs.empty()) return "";
  std::string out = "<p>Most often confused (true → predicted): ";
  for (std::size_t i = 0; i < pairs.size() && i < 5; ++i) {
    out += fmt::format("{}{} → {} ({})", i ? "; " : "", escape_html(names[pairs[i].truth]),
                       escape_html(names[pairs[i].predicted]), grouped_digits(pairs[i].count));
  }
  return out + ".</p>\n";
}

std::string confusion_table(const json& matrix, const std::vector<std::string>& names) {
  HtmlTable table{"confusion-table", {"true \\ predicted"}, {}, false};
  for (const auto& name : names) table.headers.push_back(name);
  table.headers.push_back("images");
  for (std::size_t t = 0; t < matrix.size() && t < names.size(); ++t) {
    const json& row = matrix[t];
    if (!row.is_array()) continue;
    double total = 0;
    for (const json& v : row) total += v.is_number() ? v.get<double>() : 0;
    std::vector<TableCell> cells{text_cell(names[t])};
    for (std::size_t p = 0; p < names.size(); ++p)
      cells.push_back(
          heat_cell(p < row.size() && row[p].is_number() ? row[p].get<double>() : 0, total));
    cells.push_back(number_cell(total, grouped_digits(total)));
    table.rows.push_back(std::move(cells));
  }
  return "<div class=\"wide heat\">" + render_table(table) + "</div>\n";
}

}  // namespace

std::string classes_section(const json& report) {
  const json& metrics = field(report, "/metrics");
  const json& per_class = field(metrics, "/per_class_accuracy");
  const json& matrix = field(metrics, "/confusion_matrix");
  if (!per_class.is_object() && !matrix.is_array()) return "";
  const std::vector<std::string> names =
      class_names(metrics, matrix.is_array() ? matrix.size() : per_class.size());
  std::string body;
  if (const double images = number_field(metrics, "/test_images"); std::isfinite(images)) {
    body = fmt::format("<p>On the {} test images{}.</p>\n", grouped_digits(images),
                       report.contains("checkpoint") ? ", with the weights kept" : "");
  }
  if (per_class.is_object()) {
    HtmlTable table{"per-class-table", {"class", "accuracy"}, {}, true};
    for (const auto& name : names) {
      const double accuracy = per_class.contains(name) && per_class[name].is_number()
                                  ? per_class[name].get<double>()
                                  : NAN;
      table.rows.push_back(
          {text_cell(name),
           number_cell(accuracy, std::isfinite(accuracy) ? figure_text(accuracy, "share") : "")});
    }
    body += "<h3>Accuracy per class</h3>\n" + render_table(table);
  }
  if (matrix.is_array() && !matrix.empty()) {
    body +=
        "<h3>Confusion matrix</h3>\n<p class=\"note\">Rows: the true class; columns: the "
        "predicted one; shaded by the share of the row's images.</p>\n" +
        most_confused(matrix, names);
    const std::string heat = confusion_table(matrix, names);
    body += names.size() > 20
                ? collapsible(fmt::format("all {} x {} cells", names.size(), names.size()), heat)
                : heat;
  }
  return section("classes", "Per class", body);
}

}  // namespace runner
