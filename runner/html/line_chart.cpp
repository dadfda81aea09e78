#include "runner/html/line_chart.h"

#include <fmt/format.h>

#include <cmath>

#include "runner/html/chart_axis.h"
#include "runner/html/html_text.h"
#include "runner/util/figure_text.h"

namespace runner {
namespace {

// Matplotlib's default colours, so the pages match the PNG plots.
constexpr const char* kColours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

struct Frame {
  double left = 64, top = 30, width = 0, height = 220;
  ChartAxis x, y;
  double px(double v) const { return left + width * x.fraction(v); }
  double py(double v) const { return top + height * (1 - y.fraction(v)); }
};

bool drawable(const ChartAxis& axis, double v) {
  return std::isfinite(v) && (!axis.log || v > 0);
}

std::string axes_svg(const Frame& f, const LineChart& chart) {
  std::string out;
  for (std::size_t i = 0; i < f.y.ticks.size(); ++i) {
    const double y = f.py(f.y.ticks[i]);
    out += fmt::format(
        "<line class=\"grid\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>"
        "<text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
        f.left, y, f.left + f.width, y, f.left - 6, y + 4, escape_html(f.y.labels[i]));
  }
  for (std::size_t i = 0; i < f.x.ticks.size(); ++i) {
    const double x = f.px(f.x.ticks[i]);
    out += fmt::format(
        "<line class=\"grid\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>"
        "<text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
        x, f.top, x, f.top + f.height, x, f.top + f.height + 16, escape_html(f.x.labels[i]));
  }
  out += fmt::format(
      "<rect class=\"frame\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\"/>\n",
      f.left, f.top, f.width, f.height);
  out +=
      fmt::format("<text class=\"title\" x=\"{:.1f}\" y=\"18\" text-anchor=\"middle\">{}</text>\n",
                  f.left + f.width / 2, escape_html(chart.title));
  out += fmt::format(
      "<text class=\"label\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}{}</text>\n",
      f.left + f.width / 2, f.top + f.height + 36, escape_html(chart.x_label),
      f.x.log ? " (log scale)" : "");
  out += fmt::format(
      "<text class=\"label\" transform=\"translate(14 {:.1f}) rotate(-90)\" "
      "text-anchor=\"middle\">{}{}</text>\n",
      f.top + f.height / 2, escape_html(chart.y_label), f.y.log ? " (log scale)" : "");
  return out;
}

std::string series_svg(const Frame& f, const ChartSeries& s, const char* colour,
                       const std::string& unit) {
  std::string out, path;
  bool pen_down = false;
  std::size_t finite = 0;
  for (const auto& [x, y] : s.points) finite += drawable(f.x, x) && drawable(f.y, y);
  for (const auto& [x, y] : s.points) {
    if (!drawable(f.x, x) || !drawable(f.y, y)) {
      pen_down = false;
      continue;
    }
    path += fmt::format("{}{:.1f},{:.1f} ", pen_down ? "L" : "M", f.px(x), f.py(y));
    pen_down = true;
  }
  if (!path.empty()) {
    out += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.8\"{}/>\n",
                       path, colour, s.dashed ? " stroke-dasharray=\"5 3\"" : "");
  }
  if (!s.markers && finite > 40) return out;
  for (const auto& [x, y] : s.points) {
    if (!drawable(f.x, x) || !drawable(f.y, y)) continue;
    out += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"><title>{}: {:.6g}, {}</title>"
        "</circle>\n",
        f.px(x), f.py(y), colour, escape_html(s.name), x, figure_text(y, unit));
  }
  return out;
}

std::string legend_svg(double left, const std::vector<ChartSeries>& series) {
  std::string out;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const std::string& name = series[i].name;
    std::string shown = name.size() > 34 ? name.substr(0, 33) + "…" : name;
    const double y = 36 + 16.0 * i;
    out += fmt::format(
        "<g><title>{0}</title><line x1=\"{1:.1f}\" y1=\"{2:.1f}\" x2=\"{3:.1f}\" y2=\"{2:.1f}\" "
        "stroke=\"{4}\" stroke-width=\"2.5\"{5}/><text class=\"legend\" x=\"{6:.1f}\" "
        "y=\"{7:.1f}\">{8}</text></g>\n",
        escape_html(name), left, y, left + 18, kColours[i % 10],
        series[i].dashed ? " stroke-dasharray=\"5 3\"" : "", left + 24, y + 4, escape_html(shown));
  }
  return out;
}

}  // namespace

std::string svg_line_chart(const LineChart& chart) {
  std::vector<double> xs, ys;
  for (const auto& s : chart.series) {
    for (const auto& [x, y] : s.points) {
      if (std::isfinite(x) && std::isfinite(y)) {
        xs.push_back(x);
        ys.push_back(y);
      }
    }
  }
  if (xs.empty()) return "";
  Frame f;
  f.x = fit_axis(
      xs, {.from_zero = false, .allow_log = false, .max_ticks = 7, .integer = chart.x_integer});
  f.y = fit_axis(ys, {.from_zero = chart.y_from_zero,
                      .allow_log = chart.y_log_allowed && !chart.y_from_zero,
                      .max_ticks = 6});
  const bool legend = chart.series.size() > 1;
  const double total_width = 720;
  f.width = total_width - f.left - (legend ? 230 : 20);
  const double total_height =
      std::max(f.top + f.height + 48, legend ? 48 + 16.0 * chart.series.size() : 0.0);
  std::string out = fmt::format(
      "<svg class=\"chart\" viewBox=\"0 0 {:.0f} {:.0f}\" role=\"img\"><title>{}</title>\n",
      total_width, total_height, escape_html(chart.title));
  out += axes_svg(f, chart);
  for (std::size_t i = 0; i < chart.series.size(); ++i)
    out += series_svg(f, chart.series[i], kColours[i % 10], chart.y_unit);
  if (legend) out += legend_svg(f.left + f.width + 16, chart.series);
  return out + "</svg>\n";
}

}  // namespace runner
