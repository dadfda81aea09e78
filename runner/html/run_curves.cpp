// A run's page: the loss and learning-rate curves, and the figures of every epoch.
#include <fmt/format.h>

#include <cmath>
#include <map>

#include "runner/html/html_table.h"
#include "runner/html/html_text.h"
#include "runner/html/json_fields.h"
#include "runner/html/line_chart.h"
#include "runner/html/run_sections.h"
#include "runner/util/figure_text.h"

namespace runner {
namespace {

using nlohmann::json;

// (step, figure) of every entry of a curve that has both.
ChartSeries curve_series(const json& curve, const char* figure, std::string name) {
  ChartSeries s{std::move(name), {}, false, false};
  for (const json& point : curve) {
    const double step = number_field(point, "/step"),
                 y = number_field(point, ("/" + std::string(figure)).c_str());
    if (std::isfinite(step)) s.points.emplace_back(step, y);
  }
  return s;
}

// The step at which each epoch ended, from the evaluation curves (each entry has both).
std::map<double, double> epoch_end_steps(const json& report) {
  std::map<double, double> steps;  // by epoch number, as the report writes it
  for (const char* curve : {"/curves/validation", "/curves/test"}) {
    for (const json& point : list_field(report, curve)) {
      const double epoch = number_field(point, "/epoch"), step = number_field(point, "/step");
      if (std::isfinite(epoch) && std::isfinite(step)) steps[epoch] = step;
    }
  }
  return steps;
}

// Runs whose epochs are shorter than log_every have no logged training loss: their per-epoch
// means stand in, at the step each epoch ended.
ChartSeries epoch_train_loss(const json& report) {
  ChartSeries s{"training loss (per-epoch mean)", {}, true, false};
  const auto steps = epoch_end_steps(report);
  for (const json& e : list_field(report, "/epochs")) {
    auto it = steps.find(number_field(e, "/epoch"));  // NaN finds nothing
    if (it != steps.end()) s.points.emplace_back(it->second, number_field(e, "/train_loss"));
  }
  return s;
}

std::string learning_rate_part(const json& train) {
  ChartSeries lr = curve_series(train, "lr", "learning rate");
  double low = INFINITY, high = -INFINITY;
  for (const auto& [x, y] : lr.points) {
    if (!std::isfinite(y)) continue;
    low = std::min(low, y);
    high = std::max(high, y);
  }
  if (low > high) return "";
  // A constant rate is a fact, not a chart (an axis of its own would magnify rounding).
  if (high - low <= 1e-9 * std::abs(high)) {
    return fmt::format("<p>Learning rate: {:.6g} throughout (constant).</p>\n", high);
  }
  LineChart chart{"Learning rate", "step", "learning rate", {lr}, true, false, ""};
  return svg_line_chart(chart);
}

std::string column_cell(const json& epoch, const std::string& key, const std::string& unit) {
  const double v = number_field(epoch, ("/" + key).c_str());
  return std::isfinite(v) ? figure_text(v, unit) : "";
}

}  // namespace

std::string curves_section(const json& report) {
  const json& train = list_field(report, "/curves/train");
  LineChart loss{"Loss", "step", "loss", {}, false, true, "loss"};
  ChartSeries logged = curve_series(train, "loss", "training loss (mean since the last log)");
  loss.series.push_back(logged.points.empty() ? epoch_train_loss(report) : logged);
  ChartSeries validation =
      curve_series(list_field(report, "/curves/validation"), "loss", "validation loss");
  ChartSeries test = curve_series(list_field(report, "/curves/test"), "loss", "test loss");
  for (ChartSeries* s : {&validation, &test}) {
    s->markers = true;
    if (!s->points.empty()) loss.series.push_back(*s);
  }
  std::string body = svg_line_chart(loss);
  if (body.empty()) return "";
  if (logged.points.empty()) {
    body +=
        "<p class=\"note\">No training loss was logged within an epoch (an epoch has fewer "
        "steps than training.log_every): each epoch's mean is drawn at its last step.</p>\n";
  }
  body += learning_rate_part(train);
  return section("curves", "Loss and learning rate", body);
}

std::string epochs_section(const json& report) {
  const json& epochs = list_field(report, "/epochs");
  if (epochs.empty()) return "";
  struct Column {
    const char* key;
    const char* header;
    const char* unit;
  };
  const Column all[] = {{"train_loss", "training loss", "loss"},
                        {"val_loss", "validation loss", "loss"},
                        {"val_accuracy", "validation accuracy", "share"},
                        {"test_loss", "test loss", "loss"},
                        {"test_accuracy", "test accuracy", "share"},
                        {"learning_rate", "learning rate", ""},
                        {"seconds", "time", "seconds"},
                        {"images_per_second", "images/s", "rate"}};
  std::vector<Column> shown;
  for (const Column& c : all) {
    for (const json& e : epochs) {
      if (e.is_object() && e.contains(c.key) && e[c.key].is_number()) {
        shown.push_back(c);
        break;
      }
    }
  }
  HtmlTable table{"epochs-table", {"epoch"}, {}, false};
  for (const Column& c : shown) table.headers.push_back(c.header);
  LineChart accuracy{"Accuracy per epoch", "epoch", "accuracy", {}, false, false, "share"};
  ChartSeries validation{"validation accuracy", {}, true, false};
  ChartSeries test{"test accuracy", {}, true, false};
  for (const json& e : epochs) {
    const double epoch = number_field(e, "/epoch");
    std::vector<TableCell> row{number_cell(epoch, text_field(e, "/epoch"))};
    for (const Column& c : shown) {
      row.push_back(number_cell(number_field(e, (std::string("/") + c.key).c_str()),
                                column_cell(e, c.key, c.unit)));
    }
    table.rows.push_back(std::move(row));
    validation.points.emplace_back(epoch, number_field(e, "/val_accuracy"));
    test.points.emplace_back(epoch, number_field(e, "/test_accuracy"));
  }
  for (ChartSeries* s : {&validation, &test}) {
    bool any = false;
    for (const auto& [x, y] : s->points) any = any || std::isfinite(y);
    if (any) accuracy.series.push_back(*s);
  }
  return section(
      "epochs", "Epochs",
      "<div class=\"wide\">" + render_table(table) + "</div>" + svg_line_chart(accuracy));
}

}  // namespace runner
