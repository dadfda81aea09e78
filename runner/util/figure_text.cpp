#include "runner/util/figure_text.h"

#include <fmt/format.h>

#include <cmath>

#include "runner/util/console.h"

namespace runner {

std::string grouped_digits(double value) {
  std::string digits = fmt::format("{:.0f}", std::abs(value)), out = value <= -0.5 ? "-" : "";
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string figure_text(double v, const std::string& unit, bool signed_delta) {
  const std::string sign = signed_delta && v >= 0 ? "+" : "";
  if (!std::isfinite(v)) return fmt::format("{}", v);
  if (unit == "share") return fmt::format("{}{:.2f} {}", sign, 100 * v, signed_delta ? "pts" : "%");
  if (unit == "count") return fmt::format("{}{:.3g}", sign, v);
  if (unit == "integer") return sign + grouped_digits(v);
  if (unit == "rate") {
    if (std::abs(v) < 1000) return fmt::format("{}{:.4g}/s", sign, v);
    return sign + grouped_digits(v) + "/s";
  }
  if (unit == "seconds") {
    const double a = std::abs(v);
    if (a < 1e-3) return fmt::format("{}{:.4g} µs", sign, v * 1e6);
    if (a < 1) return fmt::format("{}{:.4g} ms", sign, v * 1e3);
    return fmt::format("{}{:.4g} s", sign, v);
  }
  if (unit == "bytes") return (v < 0 ? "-" : sign) + human_bytes(std::abs(v));
  return fmt::format("{}{:.4g}", sign, v);  // losses
}

}  // namespace runner
