// A chart axis fitted to its data: a range with round ends, a few ticks whose labels do not
// crowd (3 significant digits, thousands separators), and a log scale when positive values span
// more than a decade.
#pragma once

#include <string>
#include <vector>

namespace runner {

struct ChartAxis {
  double low = 0, high = 1;  // the drawn range, in data units
  bool log = false;
  std::vector<double> ticks;
  std::vector<std::string> labels;  // one per tick

  // Where `value` lies along the axis, 0 at `low` and 1 at `high`.
  double fraction(double value) const;
};

struct AxisOptions {
  bool from_zero = false;  // include 0 (throughput, counts): a bar's length means something
  bool allow_log = true;
  int max_ticks = 6;
  bool integer = false;  // whole numbers only (steps, epochs): no tick at 1.2 epochs
};

// An axis over `values` (non-finite ones ignored; none at all gives 0 to 1).
ChartAxis fit_axis(const std::vector<double>& values, const AxisOptions& options = {});

// A tick's label: `step` is the distance between ticks, which sets the decimals shown.
std::string tick_label(double value, double step);

}  // namespace runner
