// A random search end to end: the draws in sweep.json and in each point's report, the same under
// --jobs 2, and the summary's best point chosen by the validation metric, never the test set.
#include <gtest/gtest.h>

#include "runner/sweep/search_space.h"
#include "runner/sweep/summary_search.h"
#include "runner/util/files.h"
#include "sweep_helpers.h"
#include "test_support.h"

namespace runner::testing {
namespace {

using nlohmann::json;

std::string search_file(const TempDir& tmp) {
  return tmp
      .write("search.yaml",
             "name: search\nbase: " + tiny_config() +
                 "\nmode: train\nset: [training.epochs=1, dataset.validation_split=0.25, "
                 "training.threads=1]\nsweep:\n  random:\n    trials: 4\n    seed: 11\n"
                 "    space:\n      training.optimizer.lr: {log_uniform: [1.0e-3, 0.3]}\n"
                 "      training.optimizer.momentum: {uniform: [0.5, 0.95]}\n")
      .string();
}

TEST(RandomSearch, DrawsReachTheReportsAndTheBestIsChosenByValidation) {
  TempDir tmp;
  const std::string file = search_file(tmp);
  auto dry = run_runner("sweep " + file + " --output " + (tmp / "dry").string() + " --dry-run");
  ASSERT_EQ(dry.exit_code, 0) << dry.output;
  EXPECT_NE(dry.output.find("random search: 4 trials, seed 11"), std::string::npos) << dry.output;
  auto one = run_runner("sweep " + file + " --output " + (tmp / "one").string() + " -q");
  ASSERT_EQ(one.exit_code, 0) << one.output;
  auto two = run_runner("sweep " + file + " --output " + (tmp / "two").string() + " --jobs 2 -q");
  ASSERT_EQ(two.exit_code, 0) << two.output;

  const json planned = read_json(tmp / "dry" / "search" / "sweep.json");
  ASSERT_EQ(planned["points"].size(), 4u);
  EXPECT_EQ(planned["random"]["seed"], 11);
  json best_row;
  for (const json& point : planned["points"]) {
    const std::string id = point["id"].get<std::string>();
    const json lr = point["values"]["training.optimizer.lr"];
    ASSERT_TRUE(lr.is_number_float()) << point;
    EXPECT_GE(lr.get<double>(), 1e-3);
    EXPECT_LE(lr.get<double>(), 0.3);
    for (const char* run : {"one", "two"}) {
      const json report = read_json(tmp / run / "search" / id / "report.json");
      ASSERT_TRUE(report.is_object()) << run << " " << id;
      EXPECT_EQ(report["sweep_point"]["values"], point["values"]) << run << " " << id;
      EXPECT_EQ(report["config"]["training"]["optimizer"]["lr"], lr) << run << " " << id;
    }
    const json report = read_json(tmp / "one" / "search" / id / "report.json");
    const double val = report["metrics"]["val_accuracy"].get<double>();
    if (best_row.is_null() || val > best_row["val"].get<double>()) {
      best_row = {{"id", id}, {"val", val}};
    }
  }
  const json summary = read_json(tmp / "one" / "search" / "summary.json");
  EXPECT_TRUE(schema_problems("summary.schema.json", summary).empty())
      << schema_problems("summary.schema.json", summary)[0];
  ASSERT_TRUE(summary["best"].is_object()) << summary["best"];
  EXPECT_EQ(summary["best"]["id"], best_row["id"]);
  EXPECT_EQ(summary["best"]["metric"], "val_accuracy");
  EXPECT_DOUBLE_EQ(summary["best"]["value"].get<double>(), best_row["val"].get<double>());
  EXPECT_NE(summary["best"]["command"].get<std::string>().find("runner reproduce "),
            std::string::npos);
  EXPECT_EQ(summary["search"]["paths"],
            json({"training.optimizer.lr", "training.optimizer.momentum"}));
  const std::string markdown = read_file(tmp / "one" / "search" / "summary.md");
  EXPECT_NE(markdown.find("## Best point"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| point | training.optimizer.lr | training.optimizer.momentum |"),
            std::string::npos)
      << markdown;
  if (!has_matplotlib()) GTEST_SKIP() << "/usr/bin/python3 has no matplotlib: plots not checked";
  const auto plot = tmp / "one" / "search" / "plots" / "search.svg";
  ASSERT_TRUE(std::filesystem::exists(plot));
  EXPECT_NE(read_file(plot).find("training.optimizer.lr"), std::string::npos);
}

json row(const std::string& id, const std::string& status, json val_accuracy, json test_accuracy,
         json val_loss = nullptr) {
  return {{"id", id},
          {"status", status},
          {"val_accuracy", val_accuracy},
          {"test_accuracy", test_accuracy},
          {"val_loss", val_loss},
          {"final_loss", 1.0},
          {"values", json::object()},
          {"report", id + "/report.json"}};
}

TEST(RandomSearch, TheBestPointIgnoresTheTestSetAndPointsThatDidNotComplete) {
  const json rows = {row("a", "completed", 0.5, 0.99, 0.3), row("b", "completed", 0.7, 0.1, 0.4),
                     row("c", "failed", 0.9, 0.9, 0.1), row("d", "completed", 0.7, 0.2, 0.2),
                     row("e", "completed", nullptr, 1.0)};
  json search = {{"metric", "val_accuracy"}, {"mode", "max"}};
  EXPECT_EQ(best_point(search, rows)["id"], "b");  // ties: the first
  search = {{"metric", "val_loss"}, {"mode", "min"}};
  EXPECT_EQ(best_point(search, rows)["id"], "d");
  EXPECT_EQ(best_point(search, rows)["command"], "runner reproduce d/report.json");
  const json no_validation = {row("a", "completed", nullptr, 0.9)};
  EXPECT_TRUE(best_point({{"metric", "val_accuracy"}, {"mode", "max"}}, no_validation).is_null());
  const json summary = {{"search", {{"metric", "val_accuracy"}, {"mode", "max"}, {"trials", 1}}},
                        {"best", nullptr}};
  EXPECT_NE(best_section(summary).find("needs a validation split"), std::string::npos);
  EXPECT_TRUE(search_summary(json{{"points", json::array()}}).is_null());  // a grid: no search
  // A forged manifest's fields of other types are read as absent, never as a raw type error.
  const json forged = search_summary(
      json{{"random", {{"metric", 3}, {"mode", json::array()}, {"trials", "x"}, {"space", 1}}}});
  EXPECT_EQ(forged["metric"], "val_accuracy");
  EXPECT_TRUE(forged["trials"].is_null());
  EXPECT_TRUE(best_point(json::object(), rows).is_null());
}

}  // namespace
}  // namespace runner::testing
