// Summaries from reports: rows, GPU-over-CPU speedups, missing points, the CSV and Markdown, and
// a summary.json that validates against its schema (which rejects a broken one).
#include "runner/sweep/summary.h"

#include <gtest/gtest.h>

#include "runner/sweep/summary_files.h"
#include "runner/util/errors.h"
#include "runner/util/files.h"
#include "sweep_helpers.h"
#include "test_support.h"

namespace runner::testing {
namespace {

using nlohmann::json;

// A completed benchmark report as a sweep point writes it, reduced to what a summary reads.
json point_report(const std::string& id, int index, const std::string& device,
                  double images_per_second) {
  return {{"status", "completed"},
          {"mode", "benchmark"},
          {"run_id", id},
          {"device", device},
          {"config",
           {{"device", device}, {"training", {{"batch_size", 16}}}, {"model", {{"width", 1.0}}}}},
          {"sweep_point",
           {{"id", id},
            {"index", index},
            {"values", {{"device", device}, {"training.batch_size", 16}}}}},
          {"step_time",
           {{"images_per_second", images_per_second},
            {"median_seconds", 16 / images_per_second},
            {"p10_seconds", 0.9 * 16 / images_per_second},
            {"p90_seconds", 1.1 * 16 / images_per_second}}},
          {"cpu", {{"utilisation", 0.5}}},
          {"environment", {{"threads", 2}}},
          {"model", {{"flops_per_image", 1000}}},
          {"memory", {{"peak_rss_bytes", 1 << 20}, {"estimate", {{"total", 1 << 16}}}}},
          {"benchmark", {{"mean_loss", 2.3}}},
          {"gpu", device == "cpu" ? json()
                                  : json{{"device_memory_bytes", 3 << 20},
                                         {"utilisation", {{"mean_gpu_percent", 62.0}}}}}};
}

// A sweep folder: sweep.json with four points, three of them with reports.
void write_sweep(const TempDir& tmp) {
  json points = json::array();
  for (const auto& [id, device] :
       {std::pair{"cpu", "cpu"}, {"gpu", "cuda:0"}, {"bad", "cuda:0"}, {"later", "cpu"}}) {
    points.push_back({{"id", id},
                      {"index", points.size()},
                      {"values", {{"device", device}}},
                      {"device", device},
                      {"batch_size", 16},
                      {"width", 1.0},
                      {"estimated_memory_bytes", 1 << 16}});
  }
  write_file_atomically(tmp / "sweep.json", json{{"name", "s"}, {"points", points}}.dump());
  write_file_atomically(tmp / "cpu" / "report.json", point_report("cpu", 0, "cpu", 1000).dump());
  write_file_atomically(tmp / "gpu" / "report.json", point_report("gpu", 1, "cuda:0", 4000).dump());
  json failed = {{"status", "failed"},
                 {"mode", "benchmark"},
                 {"error", "no | GPU"},
                 {"run_id", "bad"},
                 {"config", {{"device", "cuda"}}},
                 {"sweep_point", {{"id", "bad"}, {"index", 2}, {"values", json::object()}}}};
  write_file_atomically(tmp / "bad" / "report.json", failed.dump());
}

TEST(Summary, RowsFollowTheSweepAndGpuPointsGetTheirSpeedupOverTheMatchingCpuPoint) {
  TempDir tmp;
  write_sweep(tmp);
  json summary = summarize_folder(tmp.path());
  const json& rows = summary["points"];
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(summary["sweep"], "s");
  EXPECT_EQ(rows[0]["id"], "cpu");
  EXPECT_EQ(rows[0]["achieved_flops_per_second"].get<double>(), 3.0 * 1000 * 1000);
  EXPECT_TRUE(rows[0]["speedup_over_cpu"].is_null());
  EXPECT_DOUBLE_EQ(rows[1]["speedup_over_cpu"].get<double>(), 4.0);
  EXPECT_EQ(rows[2]["status"], "failed");
  EXPECT_EQ(rows[2]["device"], "cuda");
  EXPECT_TRUE(rows[2]["images_per_second"].is_null());
  EXPECT_EQ(rows[3]["status"], "missing");
  EXPECT_EQ(rows[3]["batch_size"], 16);
  for (const auto& problem : schema_problems("summary.schema.json", summary))
    ADD_FAILURE() << problem;
  json broken = summary;
  broken["points"][0].erase("images_per_second");
  EXPECT_FALSE(schema_problems("summary.schema.json", broken).empty());
  broken = summary;
  broken["points"][0]["status"] = "fine";
  EXPECT_FALSE(schema_problems("summary.schema.json", broken).empty());
}

// A forged or damaged sweep.json: points without a usable id are listed as unreadable, fields of
// other types are read as absent, and the summary stays valid against its schema.
TEST(Summary, AForgedPlanIsReadWithoutARawTypeError) {
  TempDir tmp;
  write_sweep(tmp);
  json plan = read_json(tmp / "sweep.json");
  plan["name"] = 7;
  plan["points"].push_back("x");
  plan["points"].push_back(json{{"id", 5}});
  plan["points"].push_back(json{{"id", "../outside"}});
  plan["points"].push_back(json{{"id", "bare"}});  // no other field
  plan["points"].push_back(json{{"id", "odd"}, {"index", "a"}, {"values", 3}, {"width", "w"}});
  write_file_atomically(tmp / "sweep.json", plan.dump());
  json summary = summarize_folder(tmp.path());
  ASSERT_EQ(summary["points"].size(), 6u);
  EXPECT_EQ(summary["points"][4]["id"], "bare");
  EXPECT_EQ(summary["points"][4]["status"], "missing");
  EXPECT_TRUE(summary["points"][5]["index"].is_null());
  EXPECT_EQ(summary["points"][5]["values"], json::object());
  ASSERT_EQ(summary["unreadable_reports"].size(), 3u);
  EXPECT_NE(summary["unreadable_reports"][2]["error"].get<std::string>().find("outside"),
            std::string::npos);
  const auto problems = schema_problems("summary.schema.json", summary);
  EXPECT_TRUE(problems.empty()) << problems[0];
  EXPECT_NE(summary_markdown(summary).find("| bare |"), std::string::npos);
}

TEST(Summary, GpuPointsCarryTheirUtilisationAndDeviceMemory) {
  json gpu = summary_row(run_record_from_json(point_report("gpu", 0, "cuda:0", 4000)), "r.json");
  EXPECT_DOUBLE_EQ(gpu["gpu_utilisation"].get<double>(), 0.62);
  EXPECT_EQ(gpu["gpu_memory_bytes"], 3 << 20);
  json cpu = summary_row(run_record_from_json(point_report("cpu", 0, "cpu", 1000)), "r.json");
  EXPECT_TRUE(cpu["gpu_utilisation"].is_null());
  EXPECT_TRUE(cpu["gpu_memory_bytes"].is_null());
}

TEST(Summary, ValidationFiguresGetColumnsWhenARunHasThem) {
  TempDir tmp;
  write_sweep(tmp);
  json with_validation = point_report("cpu", 0, "cpu", 1000);
  with_validation["mode"] = "train";
  with_validation["stop_reason"] = "early_stopping";
  with_validation["metrics"] = {{"val_accuracy", 0.875}, {"val_loss", 0.4}, {"best_epoch", 3}};
  write_file_atomically(tmp / "cpu" / "report.json", with_validation.dump());
  json summary = summarize_folder(tmp.path());
  const json& row = summary["points"][0];
  EXPECT_EQ(row["val_accuracy"], 0.875);
  EXPECT_EQ(row["best_epoch"], 3);
  EXPECT_EQ(row["stop_reason"], "early_stopping");
  EXPECT_TRUE(summary["points"][1]["val_accuracy"].is_null());
  EXPECT_EQ(summary["groups"][0]["stats"]["val_accuracy"]["mean"], 0.875);
  for (const auto& problem : schema_problems("summary.schema.json", summary))
    ADD_FAILURE() << problem;
  write_summary_files(tmp.path(), summary);
  const std::string md = read_file(tmp / "summary.md");
  EXPECT_NE(md.find("| val acc. | best epoch |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 87.50 % | 3 |"), std::string::npos) << md;
  const std::string csv = read_file(tmp / "summary.csv");
  EXPECT_NE(csv.find(",val_accuracy,val_loss,best_epoch,stop_reason,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",0.875,0.4,3,early_stopping,"), std::string::npos) << csv;
}

TEST(Summary, WithoutACpuPointThereIsNoSpeedup) {
  json rows = json::array(
      {summary_row(run_record_from_json(point_report("gpu", 0, "cuda:0", 4000)), "r.json")});
  add_speedups(rows);
  EXPECT_TRUE(rows[0]["speedup_over_cpu"].is_null());
}

TEST(Summary, CsvAndMarkdownHaveARowPerPointAndListTheErrors) {
  TempDir tmp;
  write_sweep(tmp);
  json summary = summarize_folder(tmp.path());
  write_summary_files(tmp.path(), summary);
  std::string csv = read_file(tmp / "summary.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);
  // The swept axes' columns (device is a column already: training.batch_size), then seed, then
  // the figures.
  EXPECT_EQ(csv.rfind("id,index,training.batch_size,seed,status,mode,device,batch_size,width,"
                      "precision,images_per_second,",
                      0),
            0u)
      << csv;
  EXPECT_NE(csv.find("\ngpu,1,16,,completed,benchmark,cuda:0,16,1.0,fp32,4000.0,"),
            std::string::npos)
      << csv;
  std::string md = read_file(tmp / "summary.md");
  // No whole-run rate in this hand-made report: its cell is empty, the median step's follows.
  EXPECT_NE(md.find("| gpu | cuda:0 | 16 | 1 | completed |  | 4000 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 50 % | 62 % |"), std::string::npos) << md;  // CPU util., GPU util.
  EXPECT_NE(md.find("4.00x |"), std::string::npos) << md;
  EXPECT_NE(md.find("- `bad`: failed: no \\| GPU"), std::string::npos) << md;
  EXPECT_TRUE(read_json(tmp / "summary.json").is_object());
}

TEST(Summary, AStatusThisRunnerDoesNotWriteIsAnErrorAndLeavesTheReportOut) {
  json report = point_report("odd", 0, "cpu", 1000);
  report["status"] = "finished";
  try {
    summary_row(run_record_from_json(report), "odd/report.json");
    FAIL() << "an unknown status was accepted";
  } catch (const UserError& error) {
    EXPECT_EQ(std::string(error.what()),
              "odd/report.json: status: found \"finished\", expected one of: completed, "
              "diverged, interrupted, stopped_early, failed, out_of_memory, invalid, running");
  }
  TempDir tmp;  // in a folder: listed as unreadable, the other reports summarised
  write_file_atomically(tmp / "a" / "report.json", point_report("a", 0, "cpu", 1000).dump());
  write_file_atomically(tmp / "odd" / "report.json", report.dump());
  json summary = summarize_folder(tmp.path());
  ASSERT_EQ(summary["points"].size(), 1u);
  EXPECT_EQ(summary["points"][0]["status"], "completed");
  ASSERT_EQ(summary["unreadable_reports"].size(), 1u);
  EXPECT_EQ(summary["unreadable_reports"][0]["error"],
            (tmp / "odd" / "report.json").string() +
                ": not a report of this runner (status: found \"finished\", expected one of: "
                "completed, diverged, interrupted, stopped_early, failed, out_of_memory, invalid, "
                "running)");
}

TEST(Summary, AFolderWithoutReportsIsAUserError) {
  TempDir tmp;
  EXPECT_THROW(summarize_folder(tmp.path()), UserError);
  EXPECT_THROW(summarize_folder(tmp / "absent"), UserError);
}

}  // namespace
}  // namespace runner::testing
