// A run's page: accuracy per class and the confusion matrix as a heat map.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "runner/config/monitor_spec.h"
#include "runner/html/html_table.h"
#include "runner/html/html_text.h"
#include "runner/html/record_text.h"
#include "runner/html/run_sections.h"
#include "runner/util/figure_text.h"

namespace runner {
namespace {

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

using ConfusionMatrix = std::vector<std::vector<std::int64_t>>;

// The metrics' class names, "class K" where they have none for class K.
std::vector<std::string> class_names(const RecordMetrics& metrics, std::size_t count) {
  const std::vector<std::string>& listed = or_empty(metrics.classes);
  std::vector<std::string> names;
  for (std::size_t k = 0; k < count; ++k)
    names.push_back(k < listed.size() ? listed[k] : fmt::format("class {}", k));
  return names;
}

// A mistake: images of the true class taken for the predicted one.
struct Mistake {
  double count;
  std::string truth, predicted;
};

// The matrix's off-diagonal cells, most images first.
std::vector<Mistake> mistakes_in(const ConfusionMatrix& matrix,
                                 const std::vector<std::string>& names) {
  std::vector<Mistake> mistakes;
  for (std::size_t t = 0; t < matrix.size() && t < names.size(); ++t) {
    for (std::size_t p = 0; p < matrix[t].size() && p < names.size(); ++p) {
      if (t != p && matrix[t][p] > 0)
        mistakes.push_back({static_cast<double>(matrix[t][p]), names[t], names[p]});
    }
  }
  std::stable_sort(mistakes.begin(), mistakes.end(),
                   [](const Mistake& a, const Mistake& b) { return a.count > b.count; });
  return mistakes;
}

// The report's own list of them (above kConfusionMatrixClasses classes), in its order.
std::vector<Mistake> mistakes_in(const std::vector<RecordConfusionPair>& pairs) {
  std::vector<Mistake> mistakes;
  for (const RecordConfusionPair& pair : pairs) {
    if (pair.truth && pair.predicted && pair.images)
      mistakes.push_back({static_cast<double>(*pair.images), *pair.truth, *pair.predicted});
  }
  return mistakes;
}

// The largest mistakes in a line: which classes are taken for which.
std::string most_confused(const std::vector<Mistake>& mistakes) {
  if (mistakes.empty()) return "";
  std::string out = "<p>Most often confused (true → predicted): ";
  for (std::size_t i = 0; i < mistakes.size() && i < 5; ++i) {
    out += fmt::format("{}{} → {} ({})", i ? "; " : "", escape_html(mistakes[i].truth),
                       escape_html(mistakes[i].predicted), grouped_digits(mistakes[i].count));
  }
  return out + ".</p>\n";
}

std::string mistakes_table(const std::vector<Mistake>& mistakes) {
  HtmlTable table{"confusion-pairs-table", {"true", "predicted", "images"}, {}, true};
  for (const Mistake& m : mistakes) {
    table.rows.push_back({text_cell(m.truth), text_cell(m.predicted),
                          number_cell(m.count, grouped_digits(m.count))});
  }
  return render_table(table);
}

std::string confusion_table(const ConfusionMatrix& matrix, const std::vector<std::string>& names) {
  HtmlTable table{"confusion-table", {"true \\ predicted"}, {}, false};
  for (const auto& name : names) table.headers.push_back(name);
  table.headers.push_back("images");
  for (std::size_t t = 0; t < matrix.size() && t < names.size(); ++t) {
    const std::vector<std::int64_t>& row = matrix[t];
    double total = 0;
    for (std::int64_t v : row) total += static_cast<double>(v);
    std::vector<TableCell> cells{text_cell(names[t])};
    for (std::size_t p = 0; p < names.size(); ++p)
      cells.push_back(heat_cell(p < row.size() ? static_cast<double>(row[p]) : 0, total));
    cells.push_back(number_cell(total, grouped_digits(total)));
    table.rows.push_back(std::move(cells));
  }
  return "<div class=\"wide heat\">" + render_table(table) + "</div>\n";
}

// A number of a class's per_class_precision_recall entry, none where it is null or absent.
std::optional<double> class_score(const nlohmann::json* scores, const char* key) {
  if (!scores || !scores->is_object() || !scores->contains(key) || !(*scores)[key].is_number())
    return std::nullopt;
  return (*scores)[key].get<double>();
}

// Accuracy per class, with precision, recall, F1 and support where the run measured them
// (metrics: per_class_precision_recall).
std::string per_class_table(const std::vector<RecordClassAccuracy>& per_class,
                            const std::vector<std::string>& names,
                            const std::optional<nlohmann::json>& scores) {
  const bool scored = scores && scores->is_object();
  HtmlTable table{"per-class-table", {"class", "accuracy"}, {}, true};
  if (scored) table.headers.insert(table.headers.end(), {"precision", "recall", "F1", "support"});
  std::map<std::string, std::optional<double>> by_name;  // thousands of classes: no linear search
  for (const RecordClassAccuracy& c : per_class) by_name.emplace(c.name, c.accuracy);
  for (const auto& name : names) {
    auto found = by_name.find(name);
    const std::optional<double> accuracy = found != by_name.end() ? found->second : std::nullopt;
    std::vector<TableCell> row{text_cell(name),
                               number_cell(value_or_nan(accuracy), figure_of(accuracy, "share"))};
    if (scored) {
      const auto entry = scores->find(name);
      const nlohmann::json* of_class = entry == scores->end() ? nullptr : &*entry;
      for (const char* key : {"precision", "recall", "f1"}) {
        const std::optional<double> value = class_score(of_class, key);
        row.push_back(number_cell(value_or_nan(value), figure_of(value, "share")));
      }
      const std::optional<double> support = class_score(of_class, "support");
      row.push_back(
          number_cell(value_or_nan(support),
                      support ? grouped_digits(static_cast<std::int64_t>(*support)) : ""));
    }
    table.rows.push_back(std::move(row));
  }
  return std::string(scored ? "<h3>Accuracy, precision and recall per class</h3>\n"
                            : "<h3>Accuracy per class</h3>\n") +
         render_table(table);
}

// The `metrics` list's figures of the kept model, one row each.
std::string figures_table(const std::map<std::string, double>& figures) {
  if (figures.empty()) return "";
  HtmlTable table{"figures-table", {"figure", "value"}, {}, false};
  for (const auto& [key, value] : figures) {
    table.rows.push_back(
        {text_cell(key), number_cell(value, figure_of(std::optional(value), figure_unit(key)))});
  }
  return "<h3>Metrics</h3>\n" + render_table(table);
}

}  // namespace

std::string classes_section(const RunRecord& record) {
  const RecordMetrics& metrics = or_empty(record.metrics);
  const auto& per_class = metrics.per_class_accuracy;
  const auto& matrix = metrics.confusion_matrix;
  const auto& pairs = metrics.confusion_pairs;
  if (!per_class && !matrix) return "";
  const std::vector<std::string> names =
      class_names(metrics, matrix ? matrix->size() : per_class->size());
  std::string body;
  if (metrics.test_images) {
    body = fmt::format("<p>On the {} test images{}.</p>\n", grouped_digits(*metrics.test_images),
                       record.checkpoint ? ", with the weights kept" : "");
  }
  body += figures_table(metrics.figures);
  if (per_class) body += per_class_table(*per_class, names, metrics.per_class_precision_recall);
  if (matrix && !matrix->empty()) {
    body +=
        "<h3>Confusion matrix</h3>\n<p class=\"note\">Rows: the true class; columns: the "
        "predicted one; shaded by the share of the row's images.</p>\n" +
        most_confused(mistakes_in(*matrix, names));
    const std::string heat = confusion_table(*matrix, names);
    body += names.size() > 20
                ? collapsible(fmt::format("all {} x {} cells", names.size(), names.size()), heat)
                : heat;
  }
  if (!matrix && pairs) {
    const std::vector<Mistake> mistakes = mistakes_in(*pairs);
    body += "<h3>Most frequent mistakes</h3>\n<p class=\"note\">" +
            escape_html(metrics.confusion_matrix_omitted.value_or("")) + "</p>\n" +
            most_confused(mistakes) +
            collapsible(fmt::format("all {} listed", mistakes.size()), mistakes_table(mistakes));
  }
  return section("classes", "Per class", body);
}

}  // namespace runner
