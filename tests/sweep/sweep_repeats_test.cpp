// `runner sweep --repeats` end to end on the tiny synthetic config: each point runs once per seed,
// the summary groups the runs with their statistics, a resumed sweep with more repeats runs only
// the new ones, and the plot script draws the groups (also for a summary of an older runner).
#include <gtest/gtest.h>

#include <cmath>

#include "runner/util/files.h"
#include "sweep_helpers.h"
#include "test_support.h"

namespace runner::testing {
namespace {

using nlohmann::json;

std::string repeats_args(const TempDir& tmp, int repeats) {
  return "sweep " + tiny_config() + " --name r --output " + tmp.path().string() +
         " --mode train --set training.epochs=2 --set checkpoint.path= --grid "
         "training.batch_size=16,32 --quiet --repeats " +
         std::to_string(repeats);
}

std::vector<double> row_figures(const json& rows, const json& ids, const char* figure) {
  std::vector<double> out;
  for (const json& row : rows) {
    if (std::find(ids.begin(), ids.end(), row["id"]) != ids.end())
      out.push_back(row[figure].get<double>());
  }
  return out;
}

void expect_stats_of(const json& stats, const std::vector<double>& values) {
  ASSERT_EQ(stats["n"].get<std::size_t>(), values.size());
  double mean = 0, squares = 0;
  for (double v : values) mean += v / static_cast<double>(values.size());
  for (double v : values) squares += (v - mean) * (v - mean);
  EXPECT_NEAR(stats["mean"].get<double>(), mean, 1e-12);
  EXPECT_NEAR(stats["std"].get<double>(), std::sqrt(squares / (values.size() - 1.0)), 1e-12);
  EXPECT_EQ(stats["min"].get<double>(), *std::min_element(values.begin(), values.end()));
  EXPECT_EQ(stats["max"].get<double>(), *std::max_element(values.begin(), values.end()));
}

TEST(SweepRepeats, EachPointRunsOncePerSeedAndTheSummaryGroupsTheRuns) {
  TempDir tmp;
  auto result = run_runner(repeats_args(tmp, 2));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto dir = tmp / "r";
  json summary = read_json(dir / "summary.json");
  ASSERT_TRUE(summary.is_object()) << result.output;
  for (const auto& problem : schema_problems("summary.schema.json", summary))
    ADD_FAILURE() << problem;
  const json& rows = summary["points"];
  ASSERT_EQ(rows.size(), 4u);
  const char* ids[] = {"batch_size=16__seed=0", "batch_size=16__seed=1", "batch_size=32__seed=0",
                       "batch_size=32__seed=1"};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(rows[i]["id"], ids[i]);
    EXPECT_EQ(rows[i]["status"], "completed") << rows[i];
    EXPECT_EQ(rows[i]["seed"], i % 2) << "tiny_synthetic's seed is 0: seeds 0 and 1";
    EXPECT_EQ(read_json(dir / ids[i] / "report.json")["seed"], i % 2);
  }
  EXPECT_NE(rows[0]["final_loss"], rows[1]["final_loss"]) << "the seeds made no difference";
  for (std::size_t i = 0; i < 4; ++i) {  // each row carries its report's curves, for the plots
    EXPECT_EQ(rows[i]["curves"], read_json(dir / ids[i] / "report.json")["curves"]) << ids[i];
    EXPECT_EQ(rows[i]["curves"]["test"].size(), 2u) << ids[i];
    EXPECT_FALSE(rows[i]["curves"]["train"].empty()) << ids[i];
  }

  const json& groups = summary["groups"];
  ASSERT_EQ(groups.size(), 2u);
  for (const json& group : groups) {
    EXPECT_EQ(group["runs"], 2);
    EXPECT_EQ(group["completed"], 2);
    for (const char* figure : {"test_accuracy", "final_loss", "images_per_second"}) {
      SCOPED_TRACE(figure);
      expect_stats_of(group["stats"][figure], row_figures(rows, group["points"], figure));
    }
    ASSERT_EQ(group["epochs"].size(), 2u);
  }
  EXPECT_EQ(groups[1]["id"], "batch_size=32");
  EXPECT_EQ(groups[1]["values"], (json{{"training.batch_size", 32}}));
  double first_epoch_mean = (rows[2]["epoch_losses"][0]["train_loss"].get<double>() +
                             rows[3]["epoch_losses"][0]["train_loss"].get<double>()) /
                            2;
  EXPECT_NEAR(groups[1]["epochs"][0]["train_loss"]["mean"].get<double>(), first_epoch_mean, 1e-12);
  EXPECT_EQ(summary["context"]["mode"], "train");
  EXPECT_EQ(summary["context"]["repeats"], 2);
  EXPECT_EQ(summary["context"]["epochs"], json{2});

  std::string csv = read_file(dir / "summary.csv");
  EXPECT_EQ(csv.rfind("id,index,training.batch_size,seed,status,", 0), 0u) << csv;
  EXPECT_NE(csv.find("\nbatch_size=32__seed=1,3,32,1,completed,train,"), std::string::npos) << csv;
  std::string grouped = read_file(dir / "summary_grouped.csv");
  EXPECT_EQ(std::count(grouped.begin(), grouped.end(), '\n'), 3) << grouped;
  std::string md = read_file(dir / "summary.md");
  EXPECT_NE(md.find("- mode: train, 2 epochs\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| batch_size=16 | cpu | 16 | 1 | 2/2 | "), std::string::npos) << md;
  EXPECT_NE(md.find(" ± "), std::string::npos) << md;

  auto more = run_runner(repeats_args(tmp, 3));
  ASSERT_EQ(more.exit_code, 0) << more.output;
  EXPECT_NE(more.output.find("6 completed (2 run now, 4 skipped as done)"), std::string::npos)
      << more.output;
  EXPECT_EQ(read_json(dir / "summary.json")["groups"][0]["runs"], 3);

  if (!has_matplotlib()) GTEST_SKIP() << "/usr/bin/python3 has no matplotlib: plots not checked";
  for (const char* plot :
       {"throughput", "utilisation", "accuracy", "loss_epochs", "loss_steps", "accuracy_epochs"}) {
    for (const char* ext : {".png", ".svg"}) {
      auto file = dir / "plots" / (std::string(plot) + ext);
      EXPECT_TRUE(std::filesystem::exists(file) && std::filesystem::file_size(file) > 1000) << file;
    }
  }
  // No GPU point: no speedup plot at all (a plot without data is left out).
  EXPECT_FALSE(std::filesystem::exists(dir / "plots" / "speedup.png"));
  // A line per point group, named with its runs in the legend (the SVG keeps text as <text>).
  for (const char* plot : {"loss_steps.svg", "accuracy_epochs.svg"}) {
    std::string svg = read_file(dir / "plots" / plot);
    EXPECT_NE(svg.find("batch_size=16 (mean of 3 runs)"), std::string::npos) << plot;
    EXPECT_NE(svg.find("batch_size=32 (mean of 3 runs)"), std::string::npos) << plot;
    EXPECT_EQ(svg.find("no curves in the summary"), std::string::npos) << plot;
  }
}

TEST(SweepRepeats, BadRepeatsExitWithCode2AndSayWhy) {
  TempDir tmp;
  std::string base = "sweep " + tiny_config() + " --dry-run --output " + tmp.path().string();
  auto zero = run_runner(base + " --repeats 0");
  EXPECT_EQ(zero.exit_code, 2) << zero.output;
  EXPECT_NE(zero.output.find("--repeats: found 0, expected a whole number from 1 to 1000"),
            std::string::npos)
      << zero.output;
  auto both = run_runner(base + " --repeats 2 --grid seed=1,2");
  EXPECT_EQ(both.exit_code, 2) << both.output;
  EXPECT_NE(both.output.find("repeats: 2 and a seed axis both vary the seed"), std::string::npos)
      << both.output;
}

TEST(PlotScript, DrawsASummaryOfAnOlderRunnerWithoutGroupsOrAxes) {
  if (!has_matplotlib()) GTEST_SKIP() << "/usr/bin/python3 has no matplotlib";
  TempDir tmp;
  // Rows as runners before repeats wrote them: no groups, axes, seed or epoch losses.
  json rows = json::array();
  for (int batch : {8, 16, 32}) {
    rows.push_back({{"id", "batch_size=" + std::to_string(batch)},
                    {"status", "completed"},
                    {"device", "cpu"},
                    {"batch_size", batch},
                    {"width", 1},
                    {"values", {{"training.batch_size", batch}}},
                    {"images_per_second", 100.0 * batch},
                    {"step_time_p10_seconds", 0.009},
                    {"step_time_p90_seconds", 0.011},
                    {"cpu_utilisation", 0.9},
                    {"gpu_utilisation", nullptr},
                    {"speedup_over_cpu", nullptr},
                    {"test_accuracy", nullptr},
                    {"test_loss", nullptr},
                    {"final_loss", 2.3}});
  }
  write_file_atomically(tmp / "summary.json",
                        json{{"sweep", "old"}, {"schema_version", 1}, {"points", rows}}.dump());
  auto result =
      run_command("/usr/bin/python3 " + (source_dir() / "scripts" / "plot_sweep.py").string() +
                  " " + tmp.path().string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  // The rows have throughput and utilisation only: the other plots have no data and are left out.
  for (const char* plot : {"throughput", "utilisation"}) {
    for (const char* ext : {".png", ".svg"}) {
      auto file = tmp / "plots" / (std::string(plot) + ext);
      EXPECT_TRUE(std::filesystem::exists(file) && std::filesystem::file_size(file) > 1000) << file;
    }
  }
  for (const char* plot : {"speedup", "accuracy", "loss_epochs", "loss_steps", "accuracy_epochs"}) {
    EXPECT_FALSE(std::filesystem::exists(tmp / "plots" / (std::string(plot) + ".svg"))) << plot;
  }
}

}  // namespace
}  // namespace runner::testing
