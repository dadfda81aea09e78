#include "runner/html/line_chart.h"

#include <gtest/gtest.h>

#include <cmath>

namespace runner {
namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(LineChart, NothingToDrawIsNoChart) {
  EXPECT_EQ(svg_line_chart({"t", "x", "y", {}, false, true, ""}), "");
  LineChart only_nan{"t", "x", "y", {{"s", {{1, NAN}}, false, false}}, false, true, ""};
  EXPECT_EQ(svg_line_chart(only_nan), "");
}

TEST(LineChart, OnePathPerSeriesALegendForSeveralAndEscapedNames) {
  LineChart chart{"Loss <train>", "step", "loss", {}, false, true, "loss"};
  chart.series.push_back({"a&b", {{1, 2.0}, {2, 1.5}, {3, 1.0}}, false, false});
  chart.series.push_back({"c", {{1, 2.2}, {3, 1.1}}, true, false});
  const std::string svg = svg_line_chart(chart);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_EQ(count(svg, "<path "), 2u);
  EXPECT_NE(svg.find("Loss &lt;train&gt;"), std::string::npos);
  EXPECT_NE(svg.find(">a&amp;b</text>"), std::string::npos) << "legend entry";
  EXPECT_EQ(count(svg, "<circle"), 5u) << "few points: a marker each, with a tooltip";
  EXPECT_EQ(svg.find("http"), std::string::npos) << "no namespace or link to anything";
}

TEST(LineChart, ANonFiniteValueBreaksTheLine) {
  LineChart chart{"t", "step", "loss", {}, false, true, ""};
  chart.series.push_back({"s", {{1, 1.0}, {2, 0.9}, {3, NAN}, {4, 0.7}, {5, 0.6}}, false, false});
  const std::string svg = svg_line_chart(chart);
  EXPECT_EQ(count(svg, "M"), 2u) << "two runs of the pen";
}

TEST(LineChart, ValuesOverManyDecadesAreOnALogAxis) {
  LineChart chart{"t", "step", "loss", {}, false, true, ""};
  chart.series.push_back({"s", {{1, 2.3}, {2, 0.5}, {3, 0.001}}, false, false});
  EXPECT_NE(svg_line_chart(chart).find("loss (log scale)"), std::string::npos);
  chart.y_log_allowed = false;
  EXPECT_EQ(svg_line_chart(chart).find("log scale"), std::string::npos);
}

}  // namespace
}  // namespace runner
