#include "runner/html/chart_axis.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "runner/util/figure_text.h"

namespace runner {
namespace {

// 1, 2, 2.5 or 5 times a power of ten: the smallest such step giving at most `max_ticks` ticks.
double nice_step(double span, int max_ticks) {
  const double raw = span / std::max(1, max_ticks - 1);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (m * magnitude >= raw) return m * magnitude;
  }
  return 10 * magnitude;
}

ChartAxis linear_axis(double min, double max, const AxisOptions& options) {
  if (options.from_zero) {
    min = std::min(min, 0.0);
    max = std::max(max, 0.0);
  }
  if (max - min <= std::abs(max) * 1e-12) {  // constant data: a band around it
    const double pad = min == 0 ? 1 : std::abs(min) * 0.1;
    min -= options.from_zero && min == 0 ? 0 : pad;
    max += pad;
  }
  ChartAxis axis;
  const double step = options.integer
                          ? std::max(1.0, std::round(nice_step(max - min, options.max_ticks)))
                          : nice_step(max - min, options.max_ticks);
  // Rounded outwards to the step; min() and max() so that rounding in the product cannot
  // leave the data a hair outside.
  axis.low = std::min(min, std::floor(min / step + 1e-9) * step);
  axis.high = std::max(max, std::ceil(max / step - 1e-9) * step);
  const double count = std::round((axis.high - axis.low) / step);
  if (!std::isfinite(count) || count < 1 || count > 50 || axis.low + step == axis.low) {
    // A span beyond doubles (1e308 apart) or below their precision (1e16 and 1e16 + 2): the
    // ends alone.
    axis.low = min;
    axis.high = max > min ? max : min + std::max(1.0, std::abs(min));
    for (double tick : {axis.low, axis.high}) {
      axis.ticks.push_back(tick);
      axis.labels.push_back(fmt::format("{:.6g}", tick));
    }
    return axis;
  }
  for (int i = 0; i <= static_cast<int>(count); ++i) {
    const double t = axis.low + i * step;
    const double tick = std::abs(t) < step * 1e-9 ? 0.0 : t;
    axis.ticks.push_back(tick);
    axis.labels.push_back(tick_label(tick, step));
  }
  return axis;
}

// Ticks at powers of ten (and at 2 and 5 times them when the range spans two decades or
// less), every k-th decade when there are too many.
ChartAxis log_axis(double min, double max, int max_ticks) {
  ChartAxis axis;
  axis.log = true;
  const int first = static_cast<int>(std::floor(std::log10(min)));
  const int last = static_cast<int>(std::ceil(std::log10(max)));
  axis.low = std::pow(10.0, first);
  axis.high = std::pow(10.0, last);
  const int decades = last - first;
  const int every = std::max(1, (decades + max_ticks - 1) / max_ticks);
  for (int e = first; e <= last; e += every) {
    const double power = std::pow(10.0, e);
    for (double m : decades <= 2 ? std::vector<double>{1, 2, 5} : std::vector<double>{1}) {
      if (m * power > axis.high * (1 + 1e-9)) break;
      axis.ticks.push_back(m * power);
      axis.labels.push_back(tick_label(m * power, m * power));
    }
  }
  return axis;
}

}  // namespace

double ChartAxis::fraction(double value) const {
  if (log) return (std::log10(value) - std::log10(low)) / (std::log10(high) - std::log10(low));
  return (value - low) / (high - low);
}

std::string tick_label(double value, double step) {
  if (value == 0) return "0";
  const double a = std::abs(value);
  // As many decimals as the step needs (0.25 needs two), so neighbouring labels differ.
  int decimals = 0;
  while (decimals < 7) {
    const double scaled = step * std::pow(10.0, decimals);
    if (std::abs(scaled - std::round(scaled)) < 1e-6 * scaled) break;
    ++decimals;
  }
  if (a >= 1e7 || a < 1e-4 || decimals > 6) {
    // As many significant digits as tell neighbouring ticks apart: 1.010e-06 beside 1.012e-06.
    const int digits = std::clamp(
        static_cast<int>(std::floor(std::log10(a)) - std::floor(std::log10(step))) + 1, 1, 8);
    return fmt::format("{:.{}e}", value, digits - 1);
  }
  if (a >= 1000 && step >= 1) return grouped_digits(value);
  return fmt::format("{:.{}f}", value, decimals);
}

ChartAxis fit_axis(const std::vector<double>& values, const AxisOptions& options) {
  double min = INFINITY, max = -INFINITY;
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    min = std::min(min, v);
    max = std::max(max, v);
  }
  if (min > max) return linear_axis(0, 1, options);
  if (options.allow_log && min > 0 && max / min > 10) return log_axis(min, max, options.max_ticks);
  return linear_axis(min, max, options);
}

}  // namespace runner
