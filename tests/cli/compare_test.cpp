// `runner compare`: reports grouped into repeats, their config and environment differences, and
// metric deltas judged against the seed noise, checked field by field on hand-made reports.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "test_support.h"

namespace runner::testing {
namespace {

using nlohmann::json;

// One real report of the tiny config (a run of one epoch), made once.
const json& base_report() {
  static const json report = [] {
    TempDir tmp;
    CommandResult run =
        run_runner((source_dir() / "configs" / "tiny_synthetic.yaml").string() +
                   " --quiet --set training.epochs=1 --output " + tmp.path().string());
    std::ifstream in(report_path_in(run.output));
    return in ? json::parse(in) : json();
  }();
  return report;
}

// The base report as if run with learning rate `lr` and `seed`, scoring `accuracy`, on
// `threads` threads: every other figure equal.
json report(double lr, int seed, double accuracy, int threads) {
  json r = base_report();
  r["config"]["training"]["optimizer"]["lr"] = lr;
  r["config"]["seed"] = seed;
  r["seed"] = seed;
  r["run_id"] = fmt::format("r{}", seed);
  r["metrics"]["test_accuracy"] = accuracy;
  r["metrics"]["test_loss"] = 1.0 - accuracy;
  r["environment"]["threads"] = threads;
  return r;
}

struct Reports {
  TempDir tmp;
  std::string a1, a2, b;
  Reports() {
    a1 = tmp.write("a1/report.json", report(0.02, 0, 0.90, 2).dump()).parent_path().string();
    a2 = tmp.write("a2/report.json", report(0.02, 1, 0.92, 2).dump()).string();
    b = tmp.write("b/report.json", report(0.05, 0, 0.95, 4).dump()).string();
  }
};

TEST(Compare, GroupsRepeatsAndJudgesDeltasAgainstTheSeedNoise) {
  Reports r;
  CommandResult result = run_runner("compare --json " + r.a1 + " " + r.a2 + " " + r.b);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  json c = json::parse(result.output);
  ASSERT_EQ(c["groups"].size(), 2u);
  EXPECT_EQ(c["groups"][0]["label"], "A");
  EXPECT_EQ(c["groups"][0]["runs"], 2);
  EXPECT_EQ(c["groups"][0]["seeds"], json({0, 1}));
  EXPECT_EQ(c["groups"][1]["runs"], 1);
  EXPECT_EQ(c["config_differences"],
            json::array({{{"path", "training.optimizer.lr"}, {"values", {"0.02", "0.05"}}}}));
  EXPECT_EQ(c["environment_differences"],
            json::array({{{"path", "threads"}, {"values", {"2", "4"}}}}));
  const json& accuracy = c["metrics"][0];
  ASSERT_EQ(accuracy["metric"], "test_accuracy");
  EXPECT_EQ(accuracy["groups"][0]["n"], 2);
  EXPECT_NEAR(accuracy["groups"][0]["mean"].get<double>(), 0.91, 1e-12);
  EXPECT_NEAR(accuracy["groups"][0]["std"].get<double>(), 0.0141421356, 1e-9);
  EXPECT_TRUE(accuracy["groups"][1]["std"].is_null());
  const json& delta = accuracy["deltas"][0];
  EXPECT_NEAR(delta["delta"].get<double>(), 0.04, 1e-12);
  EXPECT_NEAR(delta["relative"].get<double>(), 0.04 / 0.91, 1e-12);
  EXPECT_EQ(delta["within_noise"], false);  // 0.04 > 2 x 0.0141
  EXPECT_EQ(accuracy["unit"], "share");
  EXPECT_EQ(accuracy["seed_dependent"], true);
}

TEST(Compare, TimingsAndMemoryAreNotJudgedAgainstTheSeedNoiseAndReadInTheirUnits) {
  Reports r;
  json c = json::parse(run_runner("compare --json " + r.a1 + " " + r.a2 + " " + r.b).output);
  int timings = 0;
  for (const json& m : c["metrics"]) {
    if (m["seed_dependent"] == true) continue;
    ++timings;
    EXPECT_TRUE(m["deltas"][0]["within_noise"].is_null()) << m.dump();  // std 0 over repeats
  }
  EXPECT_GE(timings, 4);
  const CommandResult text = run_runner("compare " + r.a1 + " " + r.a2 + " " + r.b);
  EXPECT_TRUE(std::regex_search(text.output, std::regex(R"(peak_rss_bytes +[0-9.]+ MiB)")))
      << text.output;
  EXPECT_TRUE(
      std::regex_search(text.output, std::regex(R"(step_time_median_seconds +[0-9.]+ (ms|µs))")))
      << text.output;
  EXPECT_NE(text.output.find("no seed-noise verdict for them"), std::string::npos) << text.output;
}

TEST(Compare, ADeltaSmallerThanTwoStdIsWithinTheNoise) {
  TempDir tmp;
  std::string a1 = tmp.write("a1.json", report(0.02, 0, 0.90, 2).dump()).string();
  std::string a2 = tmp.write("a2.json", report(0.02, 1, 0.94, 2).dump()).string();
  std::string b = tmp.write("b.json", report(0.05, 0, 0.95, 2).dump()).string();
  CommandResult result = run_runner("compare --json " + a1 + " " + a2 + " " + b);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  json c = json::parse(result.output);
  EXPECT_EQ(c["environment_differences"], json::array());
  EXPECT_EQ(c["metrics"][0]["deltas"][0]["within_noise"], true);  // 0.03 < 2 x 0.0283
}

TEST(Compare, WithoutRepeatsTheNoiseIsUnknownAndTheTextSaysSo) {
  Reports r;
  CommandResult result = run_runner("compare " + r.a1 + " " + r.b);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("A: tiny_synthetic (train), 1 run (seed 0)"), std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("training.optimizer.lr  0.02  0.05"), std::string::npos)
      << result.output;
  EXPECT_TRUE(std::regex_search(
      result.output,
      std::regex(
          R"(test_accuracy +90\.00 % \(n=1\) +95\.00 % \(n=1\) +\+5\.00 pts \(\+5\.6 %\)\n)")))
      << result.output;
  EXPECT_NE(result.output.find("the seed noise is unknown"), std::string::npos) << result.output;
  json c = json::parse(run_runner("compare --json " + r.a1 + " " + r.b).output);
  EXPECT_TRUE(c["metrics"][0]["deltas"][0]["within_noise"].is_null());
}

TEST(Compare, ValidationFiguresAreComparedWhenTheReportsHaveThem) {
  TempDir tmp;
  json a = report(0.02, 0, 0.90, 2), b = report(0.05, 0, 0.95, 2);
  a["metrics"]["val_accuracy"] = 0.80;
  b["metrics"]["val_accuracy"] = 0.86;
  a["metrics"]["best_epoch"] = 1;
  b["metrics"]["best_epoch"] = 2;
  std::string pa = tmp.write("a.json", a.dump()).string(),
              pb = tmp.write("b.json", b.dump()).string();
  json c = json::parse(run_runner("compare --json " + pa + " " + pb).output);
  std::map<std::string, json> by_name;
  for (const json& m : c["metrics"]) by_name[m["metric"]] = m;
  ASSERT_TRUE(by_name.count("val_accuracy")) << c.dump(2);
  EXPECT_NEAR(by_name["val_accuracy"]["deltas"][0]["delta"].get<double>(), 0.06, 1e-12);
  EXPECT_EQ(by_name["best_epoch"]["groups"][1]["mean"], 2.0);
  EXPECT_FALSE(by_name.count("val_loss")) << "no report has it";
  // Reports without a validation set compare as before.
  Reports r;
  json plain = json::parse(run_runner("compare --json " + r.a1 + " " + r.b).output);
  for (const json& m : plain["metrics"]) EXPECT_NE(m["metric"], "val_accuracy");
}

TEST(Compare, OneReportOrNoneIsAUserError) {
  Reports r;
  CommandResult one = run_runner("compare " + r.b);
  EXPECT_EQ(one.exit_code, 2);
  EXPECT_NE(one.output.find("found 1 report, expected two or more"), std::string::npos)
      << one.output;
  CommandResult none = run_runner("compare " + r.b + " " + (r.tmp / "nothing").string());
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.output.find("nothing: no report here"), std::string::npos) << none.output;
}

}  // namespace
}  // namespace runner::testing
