// A run's page: the loss and learning-rate curves, and the figures of every epoch.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "runner/config/monitor_spec.h"
#include "runner/html/html_table.h"
#include "runner/html/html_text.h"
#include "runner/html/line_chart.h"
#include "runner/html/record_text.h"
#include "runner/html/run_sections.h"
#include "runner/util/figure_text.h"

namespace runner {
namespace {

// (step, figure) of every point of a curve that has a step.
template <class Point>
ChartSeries curve_series(const std::optional<std::vector<Point>>& curve,
                         std::optional<double> Point::*figure, std::string name) {
  ChartSeries s{std::move(name), {}, false, false};
  for (const Point& point : or_empty(curve)) {
    if (point.step)
      s.points.emplace_back(static_cast<double>(*point.step), value_or_nan(point.*figure));
  }
  return s;
}

// The step at which each epoch ended, from the evaluation curves (each entry has both).
std::map<int, double> epoch_end_steps(const RecordCurves& curves) {
  std::map<int, double> steps;  // by epoch number
  for (const auto* curve : {&curves.validation, &curves.test}) {
    for (const RecordEvalPoint& point : or_empty(*curve)) {
      if (point.epoch && point.step) steps[*point.epoch] = static_cast<double>(*point.step);
    }
  }
  return steps;
}

// Runs whose epochs are shorter than log_every have no logged training loss: their per-epoch
// means stand in, at the step each epoch ended.
ChartSeries epoch_train_loss(const RunRecord& record) {
  ChartSeries s{"training loss (per-epoch mean)", {}, true, false};
  const auto steps = epoch_end_steps(or_empty(record.curves));
  for (const RecordEpoch& e : or_empty(record.epochs)) {
    if (!e.epoch) continue;
    auto it = steps.find(*e.epoch);
    if (it != steps.end()) s.points.emplace_back(it->second, value_or_nan(e.train_loss));
  }
  return s;
}

std::string learning_rate_part(const std::optional<std::vector<RecordLossPoint>>& train) {
  ChartSeries lr = curve_series(train, &RecordLossPoint::lr, "learning rate");
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

// A figure of every epoch: a column of the table, shown when any epoch has the figure.
struct EpochColumn {
  std::optional<double> RecordEpoch::*figure;
  const char* header;
  const char* unit;
};

constexpr EpochColumn kEpochColumns[] = {
    {&RecordEpoch::train_loss, "training loss", "loss"},
    {&RecordEpoch::val_loss, "validation loss", "loss"},
    {&RecordEpoch::val_accuracy, "validation accuracy", "share"},
    {&RecordEpoch::test_loss, "test loss", "loss"},
    {&RecordEpoch::test_accuracy, "test accuracy", "share"},
    {&RecordEpoch::learning_rate, "learning rate", ""},
    {&RecordEpoch::seconds, "time", "seconds"},
    {&RecordEpoch::images_per_second, "images/s", "rate"}};

std::vector<EpochColumn> shown_columns(const std::vector<RecordEpoch>& epochs) {
  std::vector<EpochColumn> shown;
  for (const EpochColumn& c : kEpochColumns) {
    if (std::any_of(epochs.begin(), epochs.end(),
                    [&](const RecordEpoch& e) { return (e.*c.figure).has_value(); }))
      shown.push_back(c);
  }
  return shown;
}

HtmlTable epochs_table(const std::vector<RecordEpoch>& epochs) {
  const std::vector<EpochColumn> shown = shown_columns(epochs);
  // The `metrics` list's figures any epoch has, by their report key, after the fixed columns.
  std::set<std::string> figures;
  for (const RecordEpoch& e : epochs) {
    for (const auto& [key, value] : e.figures) figures.insert(key);
  }
  HtmlTable table{"epochs-table", {"epoch"}, {}, false};
  for (const EpochColumn& c : shown) table.headers.push_back(c.header);
  for (const std::string& key : figures) table.headers.push_back(key);
  for (const RecordEpoch& e : epochs) {
    std::vector<TableCell> row{number_cell(value_or_nan(e.epoch), text_of(e.epoch))};
    for (const EpochColumn& c : shown)
      row.push_back(number_cell(value_or_nan(e.*c.figure), figure_of(e.*c.figure, c.unit)));
    for (const std::string& key : figures) {
      const auto found = e.figures.find(key);
      const std::optional<double> value =
          found == e.figures.end() ? std::nullopt : std::optional(found->second);
      row.push_back(number_cell(value_or_nan(value), figure_of(value, figure_unit(key))));
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

// The accuracies per epoch, the sets' that have any.
LineChart accuracy_chart(const std::vector<RecordEpoch>& epochs) {
  LineChart chart{"Accuracy per epoch", "epoch", "accuracy", {}, false, false, "share"};
  for (const auto& [figure, name] : {std::pair{&RecordEpoch::val_accuracy, "validation accuracy"},
                                     std::pair{&RecordEpoch::test_accuracy, "test accuracy"}}) {
    ChartSeries series{name, {}, true, false};
    bool any = false;
    for (const RecordEpoch& e : epochs) {
      series.points.emplace_back(value_or_nan(e.epoch), value_or_nan(e.*figure));
      any = any || (e.*figure).has_value();
    }
    if (any) chart.series.push_back(std::move(series));
  }
  return chart;
}

}  // namespace

std::string curves_section(const RunRecord& record) {
  const RecordCurves& curves = or_empty(record.curves);
  LineChart loss{"Loss", "step", "loss", {}, false, true, "loss"};
  ChartSeries logged =
      curve_series(curves.train, &RecordLossPoint::loss, "training loss (mean since the last log)");
  loss.series.push_back(logged.points.empty() ? epoch_train_loss(record) : logged);
  ChartSeries validation =
      curve_series(curves.validation, &RecordEvalPoint::loss, "validation loss");
  ChartSeries test = curve_series(curves.test, &RecordEvalPoint::loss, "test loss");
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
  body += learning_rate_part(curves.train);
  return section("curves", "Loss and learning rate", body);
}

std::string epochs_section(const RunRecord& record) {
  if (!record.epochs || record.epochs->empty()) return "";
  const std::vector<RecordEpoch>& epochs = *record.epochs;
  return section("epochs", "Epochs",
                 "<div class=\"wide\">" + render_table(epochs_table(epochs)) + "</div>" +
                     svg_line_chart(accuracy_chart(epochs)));
}

}  // namespace runner
