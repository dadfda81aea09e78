#include "runner/sweep/summary_terminal.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace runner {
namespace {

using nlohmann::json;

json stat(double mean, double sd, int n) {
  return {{"mean", mean}, {"std", n > 1 ? json(sd) : json()}, {"n", n}};
}

json empty_stat() {
  return {{"mean", nullptr}, {"std", nullptr}, {"n", 0}};
}

// A summary of `groups` point groups over `axes` axes, each point group with two runs.
json summary_of(int groups, const std::vector<std::string>& axes, const std::string& value) {
  json summary = {
      {"sweep", "wide"}, {"axes", axes}, {"points", json::array()}, {"groups", json::array()}};
  for (int g = 0; g < groups; ++g) {
    json values = json::object();
    for (const auto& axis : axes) values[axis] = value + std::to_string(g);
    const std::string id = "g" + std::to_string(g);
    summary["points"].push_back({{"id", id + "__seed=0"},
                                 {"values", values},
                                 {"status", g == 0 ? "failed" : "completed"},
                                 {"busy", false}});
    summary["groups"].push_back({{"id", id},
                                 {"device", "cpu"},
                                 {"runs", 2},
                                 {"completed", g == 0 ? 1 : 2},
                                 {"points", {id + "__seed=0"}},
                                 {"stats",
                                  {{"images_per_second", stat(123456.7 * (g + 1), 2345.6, 2)},
                                   {"test_accuracy", stat(0.9123, 0.0042, 2)},
                                   {"val_accuracy", empty_stat()},
                                   {"final_loss", stat(0.3456789, 0.0123456, 2)},
                                   {"speedup_over_cpu", empty_stat()}}}});
  }
  return summary;
}

TEST(SummaryTerminal, FitsTheWidthAndLeavesOutEmptyColumns) {
  const json summary = summary_of(3, {"model.width", "training.optimizer.lr"}, "0.00");
  const std::string text = summary_terminal(summary);
  EXPECT_LE(testing::widest_line(text), 100u) << text;
  EXPECT_NE(text.find("width"), std::string::npos) << "axes by their short names";
  EXPECT_NE(text.find("lr"), std::string::npos);
  EXPECT_NE(text.find("123,457 ± 2,346"), std::string::npos) << text;
  EXPECT_NE(text.find("91.23 ± 0.42 %"), std::string::npos) << text;
  EXPECT_EQ(text.find("GPU/CPU"), std::string::npos) << "no GPU point: no column";
  EXPECT_EQ(text.find("val acc."), std::string::npos) << "no validation split: no column";
  EXPECT_EQ(text.find("device"), std::string::npos) << "one device: said in no column";
  EXPECT_NE(text.find("1/2"), std::string::npos) << "a group with a failed run";
  EXPECT_NE(text.find("1 run did not complete"), std::string::npos) << text;
}

TEST(SummaryTerminal, ManyLongAxesAreShortenedToTheWidth) {
  const json summary =
      summary_of(4,
                 {"a.first_axis_with_a_long_name", "b.second_axis_with_a_long_name", "c.third_axis",
                  "d.fourth_axis", "e.fifth_axis"},
                 "a-value-that-is-long-enough-to-matter-");
  for (std::size_t width : {100u, 80u}) {
    const std::string text = summary_terminal(summary, width);
    EXPECT_LE(testing::widest_line(text), width) << text;
    EXPECT_NE(text.find("…"), std::string::npos) << "shortened values say so";
    EXPECT_NE(text.find("images/s"), std::string::npos) << "the throughput stays";
  }
}

TEST(SummaryTerminal, ManyGroupsAreCutWithACount) {
  const std::string text = summary_terminal(summary_of(45, {"model.width"}, "w"));
  EXPECT_NE(text.find("... 5 more point groups"), std::string::npos) << text;
}

}  // namespace
}  // namespace runner
