// Repeats in a summary: sample statistics, runs grouped by point (seed left out), the CSVs'
// columns (one per swept axis, then seed; numbers as numbers), the Markdown's head, its
// mean ± std cells and the busy-machine marks.
#include "runner/sweep/summary_groups.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "runner/sweep/summary.h"
#include "runner/sweep/summary_files.h"
#include "runner/util/files.h"
#include "sweep_helpers.h"
#include "test_support.h"

namespace runner::testing {
namespace {

using nlohmann::json;

// Mean and sample standard deviation, written out here as the definitions say.
double mean_of(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}
double sample_std_of(const std::vector<double>& v) {
  double m = mean_of(v), squares = 0;
  for (double x : v) squares += (x - m) * (x - m);
  return std::sqrt(squares / static_cast<double>(v.size() - 1));
}

// A completed train-mode run of batch size `batch` with `seed`, as a sweep point's report.
json train_report(int batch, int seed, double accuracy, double images_per_second,
                  const std::vector<std::pair<double, double>>& losses) {
  std::string id = fmt::format("batch_size={}__seed={}", batch, seed);
  json epochs = json::array();
  for (std::size_t e = 0; e < losses.size(); ++e) {
    epochs.push_back({{"epoch", e + 1},
                      {"train_loss", losses[e].first},
                      {"test_loss", losses[e].second},
                      {"test_accuracy", accuracy},
                      {"seconds", 1.0},
                      {"images_per_second", images_per_second}});
  }
  return {
      {"status", "completed"},
      {"mode", "train"},
      {"run_id", id},
      {"seed", seed},
      {"device", "cpu"},
      {"started_at", fmt::format("2026-11-23T10:0{}:00Z", seed)},
      {"finished_at", fmt::format("2026-11-23T10:0{}:30Z", seed)},
      {"config",
       {{"device", "cpu"},
        {"seed", seed},
        {"training", {{"batch_size", batch}, {"epochs", losses.size()}}},
        {"model", {{"width", 1.0}}}}},
      {"environment",
       {{"hostname", "box"},
        {"cpu_model", "Xeon"},
        {"git_commit", "abc123"},
        {"git_dirty", false}}},
      {"sweep_point",
       {{"id", id}, {"index", seed}, {"values", {{"training.batch_size", batch}, {"seed", seed}}}}},
      {"step_time",
       {{"images_per_second", images_per_second},
        {"median_seconds", batch / images_per_second},
        {"p10_seconds", 0.9 * batch / images_per_second},
        {"p90_seconds", 1.2 * batch / images_per_second}}},
      {"metrics", {{"test_accuracy", accuracy}, {"test_loss", losses.back().second}}},
      {"epochs", epochs}};
}

TEST(SampleStats, MeanSampleStdMinMaxAndCount) {
  std::vector<double> values = {0.25, 0.5, 1.0, 0.75};
  json stats = sample_stats(values);
  EXPECT_EQ(stats["n"], 4);
  EXPECT_DOUBLE_EQ(stats["mean"].get<double>(), mean_of(values));
  EXPECT_DOUBLE_EQ(stats["std"].get<double>(), sample_std_of(values));
  EXPECT_DOUBLE_EQ(stats["min"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(stats["max"].get<double>(), 1.0);
  json one = sample_stats({3.0});
  EXPECT_EQ(one["n"], 1);
  EXPECT_DOUBLE_EQ(one["mean"].get<double>(), 3.0);
  EXPECT_TRUE(one["std"].is_null()) << "one run has no sample standard deviation";
  json none = sample_stats({});
  EXPECT_EQ(none["n"], 0);
  EXPECT_TRUE(none["mean"].is_null() && none["min"].is_null() && none["max"].is_null());
}

// Batch 16 with seeds 0, 1, 2 (seed 2 failed) and batch 32 with seeds 0, 1.
struct Runs {
  std::vector<double> accuracy16 = {0.62, 0.09}, ips16 = {1000, 1300};
  std::vector<double> accuracy32 = {0.5, 0.56}, ips32 = {2000, 1800};
  std::vector<std::vector<std::pair<double, double>>> losses16 = {{{2.0, 1.9}, {1.5, 1.6}},
                                                                  {{2.2, 2.1}, {1.1, 1.4}}};
  json rows = json::array();

  Runs() {
    for (int seed : {0, 1}) {
      rows.push_back(summary_row(run_record_from_json(train_report(16, seed, accuracy16[seed],
                                                                   ips16[seed], losses16[seed])),
                                 "r.json"));
    }
    json failed = train_report(16, 2, 0, 1, {{1, 1}});
    failed = {{"status", "failed"},
              {"mode", "train"},
              {"error", "no"},
              {"sweep_point", failed["sweep_point"]}};
    rows.push_back(summary_row(run_record_from_json(failed), "f.json"));
    for (int seed : {0, 1}) {
      rows.push_back(summary_row(
          run_record_from_json(train_report(32, seed, accuracy32[seed], ips32[seed], {{1.0, 1.0}})),
          "r.json"));
    }
  }
};

TEST(SummaryGroups, RunsThatDifferOnlyInTheirSeedAreOneGroupWithStatisticsOfItsCompletedRuns) {
  Runs runs;
  json groups = group_rows(runs.rows);
  ASSERT_EQ(groups.size(), 2u) << groups.dump(1);
  const json& g16 = groups[0];
  EXPECT_EQ(g16["id"], "batch_size=16");
  EXPECT_EQ(g16["values"], (json{{"training.batch_size", 16}}));
  EXPECT_EQ(g16["runs"], 3);
  EXPECT_EQ(g16["completed"], 2);
  EXPECT_EQ(g16["seeds"], (json{0, 1, 2}));
  EXPECT_EQ(g16["points"][2], "batch_size=16__seed=2");
  const json& accuracy = g16["stats"]["test_accuracy"];
  EXPECT_EQ(accuracy["n"], 2);
  EXPECT_DOUBLE_EQ(accuracy["mean"].get<double>(), mean_of(runs.accuracy16));
  EXPECT_DOUBLE_EQ(accuracy["std"].get<double>(), sample_std_of(runs.accuracy16));
  EXPECT_DOUBLE_EQ(accuracy["min"].get<double>(), 0.09);
  EXPECT_DOUBLE_EQ(accuracy["max"].get<double>(), 0.62);
  EXPECT_DOUBLE_EQ(g16["stats"]["images_per_second"]["std"].get<double>(),
                   sample_std_of(runs.ips16));
  EXPECT_DOUBLE_EQ(g16["stats"]["final_loss"]["mean"].get<double>(),
                   mean_of({runs.losses16[0][1].first, runs.losses16[1][1].first}));
  ASSERT_EQ(g16["epochs"].size(), 2u);
  EXPECT_DOUBLE_EQ(g16["epochs"][1]["test_loss"]["mean"].get<double>(),
                   mean_of({runs.losses16[0][1].second, runs.losses16[1][1].second}));
  EXPECT_DOUBLE_EQ(g16["epochs"][0]["train_loss"]["std"].get<double>(),
                   sample_std_of({runs.losses16[0][0].first, runs.losses16[1][0].first}));
  EXPECT_DOUBLE_EQ(groups[1]["stats"]["test_accuracy"]["mean"].get<double>(),
                   mean_of(runs.accuracy32));
  EXPECT_TRUE(g16["busy"].is_null()) << "no load figures in these reports";
}

TEST(SummaryGroups, ASeedAxisAnywhereInTheIdGroupsLikeRepeats) {
  json rows = json::array();
  for (int seed : {1, 2}) {  // --grid seed=1,2 --grid training.batch_size=16: the seed comes first
    json report = train_report(16, seed, 0.5, 100, {{1, 1}});
    report["sweep_point"]["id"] = fmt::format("seed={}__batch_size=16", seed);
    rows.push_back(summary_row(run_record_from_json(report), "r.json"));
  }
  json groups = group_rows(rows);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0]["id"], "batch_size=16");
  EXPECT_EQ(groups[0]["seeds"], (json{1, 2}));
}

TEST(SummaryGroups, RunsWithoutSweepValuesAreGroupsOfTheirOwn) {
  json a =
      summary_row(run_record_from_json(train_report(16, 0, 0.5, 100, {{1, 1}})), "a/report.json");
  json b = a;
  for (json* row : {&a, &b}) (*row)["values"] = json::object();
  b["report"] = "b/report.json";
  EXPECT_EQ(group_rows(json{a, b}).size(), 2u);
}

TEST(SummaryGroups, SweptAxesLeaveTheSeedOut) {
  Runs runs;
  EXPECT_EQ(swept_axes(runs.rows), std::vector<std::string>{"training.batch_size"});
}

// The summary of a folder with the runs above and a sweep.json naming them.
json summary_in(const TempDir& tmp, bool busy) {
  Runs runs;
  json points = json::array();
  int index = 0;
  for (int batch : {16, 32}) {
    for (int seed = 0; seed < (batch == 16 ? 3 : 2); ++seed) {
      std::string id = fmt::format("batch_size={}__seed={}", batch, seed);
      json values = {{"training.batch_size", batch}, {"seed", seed}};
      points.push_back({{"id", id},
                        {"index", index++},
                        {"values", values},
                        {"device", "cpu"},
                        {"batch_size", batch},
                        {"width", 1.0},
                        {"estimated_memory_bytes", 1}});
      if (batch == 16 && seed == 2) continue;  // no report: missing
      json report =
          train_report(batch, seed, batch == 16 ? runs.accuracy16[seed] : runs.accuracy32[seed],
                       batch == 16 ? runs.ips16[seed] : runs.ips32[seed], {{1.0, 1.0}});
      if (busy) {
        report["machine_load"] = {
            {"cores", 2}, {"load_average_start", seed == 1 ? 3.5 : 0.5}, {"load_average_end", 1.0}};
      }
      write_file_atomically(tmp / id / "report.json", report.dump());
    }
  }
  write_file_atomically(
      tmp / "sweep.json",
      json{{"name", "reps"}, {"mode", "train"}, {"repeats", 3}, {"points", points}}.dump());
  return summarize_folder(tmp.path());
}

std::vector<std::string> csv_rows(const std::string& csv) {
  std::vector<std::string> lines;
  for (std::size_t start = 0; start < csv.size();) {
    std::size_t end = csv.find('\n', start);
    lines.push_back(csv.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> cells(1);
  for (char c : line) {
    if (c == ',') {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  return cells;
}

std::size_t column(const std::vector<std::string>& header, const std::string& name) {
  auto it = std::find(header.begin(), header.end(), name);
  EXPECT_NE(it, header.end()) << name;
  return static_cast<std::size_t>(it - header.begin());
}

TEST(SummaryGroups, SummaryJsonHasContextAxesAndGroupsAndValidates) {
  TempDir tmp;
  json summary = summary_in(tmp, false);
  for (const auto& problem : schema_problems("summary.schema.json", summary))
    ADD_FAILURE() << problem;
  EXPECT_EQ(summary["axes"], json{"training.batch_size"});
  ASSERT_EQ(summary["groups"].size(), 2u);
  EXPECT_EQ(summary["groups"][0]["runs"], 3);
  EXPECT_EQ(summary["groups"][0]["completed"], 2);
  EXPECT_EQ(summary["points"][2]["status"], "missing");
  EXPECT_EQ(summary["points"][2]["seed"], 2) << "a missing run's seed comes from its values";
  const json& context = summary["context"];
  EXPECT_EQ(context["mode"], "train");
  EXPECT_EQ(context["repeats"], 3);
  EXPECT_EQ(context["epochs"], json{1});
  EXPECT_EQ(context["machines"], json{"box (Xeon)"});
  EXPECT_EQ(context["commits"], json{"abc123"});
  EXPECT_EQ(context["started_at"], "2026-11-23T10:00:00Z");
  EXPECT_EQ(context["finished_at"], "2026-11-23T10:01:30Z");
}

TEST(SummaryGroups, RunCsvHasAColumnPerAxisAndASeedColumnOfNumbers) {
  TempDir tmp;
  json summary = summary_in(tmp, false);
  auto lines = csv_rows(summary_csv(summary));
  ASSERT_EQ(lines.size(), 6u);  // the header and five runs
  auto header = cells_of(lines[0]);
  EXPECT_EQ(std::vector<std::string>(header.begin(), header.begin() + 4),
            (std::vector<std::string>{"id", "index", "training.batch_size", "seed"}));
  EXPECT_EQ(std::find(header.begin(), header.end(), "values"), header.end())
      << "no packed values column";
  for (std::size_t i = 1; i < lines.size(); ++i) {
    auto cells = cells_of(lines[i]);
    ASSERT_EQ(cells.size(), header.size()) << lines[i];
    const json& row = summary["points"][i - 1];
    EXPECT_EQ(std::stoi(cells[column(header, "training.batch_size")]),
              row["values"]["training.batch_size"].get<int>());
    EXPECT_EQ(std::stoi(cells[column(header, "seed")]), row["seed"].get<int>());
    if (row["status"] == "completed") {
      EXPECT_DOUBLE_EQ(std::stod(cells[column(header, "test_accuracy")]),
                       row["test_accuracy"].get<double>());
    }
  }
}

TEST(SummaryGroups, GroupedCsvHasMeanStdMinMaxAndNOfEachFigure) {
  TempDir tmp;
  json summary = summary_in(tmp, false);
  write_summary_files(tmp.path(), summary);
  auto lines = csv_rows(read_file(tmp / "summary_grouped.csv"));
  ASSERT_EQ(lines.size(), 3u);
  auto header = cells_of(lines[0]);
  EXPECT_EQ(header[0], "group");
  EXPECT_EQ(header[1], "training.batch_size");
  auto g16 = cells_of(lines[1]);
  ASSERT_EQ(g16.size(), header.size());
  Runs runs;
  EXPECT_EQ(g16[0], "batch_size=16");
  EXPECT_EQ(g16[column(header, "runs")], "3");
  EXPECT_EQ(g16[column(header, "completed")], "2");
  EXPECT_NEAR(std::stod(g16[column(header, "test_accuracy_mean")]), mean_of(runs.accuracy16),
              1e-12);
  EXPECT_NEAR(std::stod(g16[column(header, "test_accuracy_std")]), sample_std_of(runs.accuracy16),
              1e-12);
  EXPECT_EQ(g16[column(header, "test_accuracy_n")], "2");
  EXPECT_NEAR(std::stod(g16[column(header, "images_per_second_max")]), 1300, 1e-9);
}

TEST(SummaryGroups, MarkdownOpensWithWhatWasRunAndShowsMeanStdAndCount) {
  TempDir tmp;
  json summary = summary_in(tmp, false);
  std::string md = summary_markdown(summary);
  EXPECT_EQ(md.rfind("# Sweep reps\n\n- mode: train, 1 epoch\n", 0), 0u) << md;
  EXPECT_NE(md.find("- runs: 2 point groups, 5 runs (4 completed); up to 3 runs per point"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("- machine: box (Xeon)\n- commit: abc123\n"), std::string::npos) << md;
  EXPECT_NE(md.find("- date: 2026-11-23T10:00:00Z to 2026-11-23T10:01:30Z"), std::string::npos)
      << md;
  Runs runs;
  std::string accuracy = fmt::format("{:.2f} ± {:.2f} % (2)", 100 * mean_of(runs.accuracy16),
                                     100 * sample_std_of(runs.accuracy16));
  std::string ips =
      fmt::format("{:.0f} ± {:.0f} (2)", mean_of(runs.ips16), sample_std_of(runs.ips16));
  EXPECT_NE(md.find("| batch_size=16 | cpu | 16 | 1 | 2/3 | " + ips + " | " + accuracy + " |"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("busy"), std::string::npos) << "no load figures, no busy marks";
}

TEST(SummaryGroups, RunsOnABusyMachineAreMarkedWithTheirLoad) {
  TempDir tmp;
  json summary = summary_in(tmp, true);
  EXPECT_EQ(summary["points"][0]["busy"], false);
  EXPECT_EQ(summary["points"][1]["busy"], true);
  EXPECT_DOUBLE_EQ(summary["points"][1]["load_average"].get<double>(), 3.5);
  EXPECT_EQ(summary["groups"][0]["busy"], true);
  std::string md = summary_markdown(summary);
  EXPECT_NE(md.find("- busy machine: 2 runs started or ended with a load average above the cores"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| 1.0 / 2 cores |\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| 3.5 / 2 cores busy |\n"), std::string::npos) << md;
}

}  // namespace
}  // namespace runner::testing
