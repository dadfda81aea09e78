// Line charts as inline SVG: no script, no font or image to fetch, printable, a tooltip on
// every point (an SVG <title>).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace runner {

struct ChartSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y); a non-finite y breaks the line
  bool markers = false;                           // a dot at every point (always when few)
  bool dashed = false;
};

struct LineChart {
  std::string title, x_label, y_label;
  std::vector<ChartSeries> series;
  bool y_from_zero = false;
  bool y_log_allowed = true;  // log when positive values span more than a decade
  std::string y_unit;         // a figure_text unit for tooltips ("share", "rate", ...)
  bool x_integer = true;      // x counts steps or epochs
};

// The chart's <svg> element, or "" when no series has a finite point (nothing to draw).
std::string svg_line_chart(const LineChart& chart);

}  // namespace runner
