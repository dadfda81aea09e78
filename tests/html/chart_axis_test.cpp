#include "runner/html/chart_axis.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace runner {
namespace {

// Ticks that a reader can tell apart: distinct labels, short, evenly spread, covering the data.
void expect_readable(const ChartAxis& axis, const std::vector<double>& data) {
  ASSERT_GE(axis.ticks.size(), 2u);
  ASSERT_LE(axis.ticks.size(), 8u);
  ASSERT_EQ(axis.ticks.size(), axis.labels.size());
  std::set<std::string> distinct(axis.labels.begin(), axis.labels.end());
  EXPECT_EQ(distinct.size(), axis.labels.size()) << "two ticks read the same";
  for (const auto& label : axis.labels) EXPECT_LE(label.size(), 10u) << label;
  for (double v : data) {
    EXPECT_LE(axis.low, v);
    EXPECT_GE(axis.high, v);
    EXPECT_GE(axis.fraction(v), -1e-9);
    EXPECT_LE(axis.fraction(v), 1 + 1e-9);
  }
}

TEST(ChartAxis, CloseValuesGetDistinctShortLabels) {
  // The overlapping pair: 0.005888 and 0.01085 on one axis.
  const std::vector<double> data = {0.005888, 0.01085, 0.0075};
  ChartAxis axis = fit_axis(data);
  EXPECT_FALSE(axis.log) << "less than a decade apart: linear";
  expect_readable(axis, data);
}

TEST(ChartAxis, ValuesSpanningMoreThanADecadeGetALogAxis) {
  const std::vector<double> data = {50, 1200, 5'000'000};
  ChartAxis axis = fit_axis(data);
  EXPECT_TRUE(axis.log);
  expect_readable(axis, data);
  EXPECT_NEAR(axis.fraction(axis.low), 0, 1e-12);
  EXPECT_NEAR(axis.fraction(axis.high), 1, 1e-12);
  // Powers of ten read as numbers, not exponents of 10^-2.1.
  EXPECT_NE(std::find(axis.labels.begin(), axis.labels.end(), "1,000"), axis.labels.end());
}

TEST(ChartAxis, ALogAxisIsNotUsedWhenNotAllowedOrForNonPositiveValues) {
  EXPECT_FALSE(fit_axis({0.001, 10}, {.allow_log = false}).log);
  EXPECT_FALSE(fit_axis({0, 10, 1000}).log);
  EXPECT_FALSE(fit_axis({-5, 100}).log);
}

TEST(ChartAxis, FromZeroIncludesZero) {
  ChartAxis axis = fit_axis({15000, 23000}, {.from_zero = true});
  EXPECT_EQ(axis.low, 0);
  EXPECT_EQ(axis.labels.front(), "0");
  EXPECT_EQ(axis.labels.back().find(','), 2u) << "thousands separators: " << axis.labels.back();
}

TEST(ChartAxis, ConstantDataGetsABandAroundIt) {
  ChartAxis axis = fit_axis({0.02, 0.02, 0.02});
  EXPECT_LT(axis.low, 0.02);
  EXPECT_GT(axis.high, 0.02);
  expect_readable(axis, {0.02});
}

TEST(ChartAxis, IntegerAxesHaveNoFractionalTicks) {
  ChartAxis axis = fit_axis({1, 2}, {.allow_log = false, .integer = true});
  for (double t : axis.ticks) EXPECT_EQ(t, std::round(t));
  expect_readable(axis, {1, 2});
}

TEST(ChartAxis, ManyRangesStayReadable) {
  for (double scale : {1e-6, 1e-3, 0.37, 1.0, 42.0, 9.9e3, 1.23e6}) {
    for (double spread : {1.01, 1.5, 3.0, 9.0}) {
      const std::vector<double> data = {scale, scale * spread};
      SCOPED_TRACE(::testing::Message() << scale << " x " << spread);
      expect_readable(fit_axis(data), data);
    }
  }
}

TEST(ChartAxis, SpansBeyondOrBelowWhatDoublesHoldEndInAFewTicks) {
  // 1e16 + 1 == 1e16 in doubles: stepping by 1 would never end; 1e308 apart is infinite.
  for (const auto& data : std::vector<std::vector<double>>{
           {1e16, 1e16 + 4}, {-1e308, 1e308}, {1e300, 1e300}, {5e-324, 1e-323}}) {
    ChartAxis axis = fit_axis(data, {.allow_log = false});
    EXPECT_GE(axis.ticks.size(), 2u);
    EXPECT_LE(axis.ticks.size(), 51u);
    EXPECT_EQ(axis.ticks.size(), axis.labels.size());
  }
}

TEST(ChartAxis, NoFiniteDataIsAUnitAxis) {
  ChartAxis axis = fit_axis({NAN, INFINITY});
  EXPECT_EQ(axis.low, 0);
  EXPECT_EQ(axis.high, 1);
}

}  // namespace
}  // namespace runner
