// ASHA end to end on small real runs: most trials stop at the first rung and one trains to the
// end; a trial that goes on trains on exactly (its rerun reproduces it); the test set stays unseen
// until a trial's last epoch; the same under --jobs 2 and after kill -9; bad settings refused.
#include <gtest/gtest.h>

#include <map>

#include "runner/sweep/asha.h"
#include "runner/sweep/rung_records.h"
#include "runner/util/files.h"
#include "sweep_helpers.h"
#include "test_support.h"

namespace runner::testing {
namespace {

using nlohmann::json;

// 8 trials of 4 epochs, rungs after epochs 1 and 2, half going on.
std::string asha_file(const TempDir& tmp, const std::string& asha =
                                              "{min_epochs: 1, "
                                              "max_epochs: 4, "
                                              "reduction_factor: 2}") {
  return tmp
      .write("asha.yaml",
             "name: asha\nbase: " + tiny_config() +
                 "\nset: [dataset.validation_split=0.2, training.threads=1]\n"
                 "sweep:\n  random:\n    trials: 8\n    seed: 3\n    space:\n"
                 "      training.optimizer.lr: {log_uniform: [1.0e-3, 0.3]}\n  asha: " +
                 asha + "\n")
      .string();
}

// Each trial's report in the sweep folder, by id.
std::map<std::string, json> reports(const std::filesystem::path& dir) {
  std::map<std::string, json> out;
  const json manifest = read_json(dir / "sweep.json");
  for (const json& point : manifest["points"]) {
    const std::string id = point["id"];
    out[id] = read_json(dir / id / "report.json");
  }
  return out;
}

// Every recorded decision is the rule's, applied in the order recorded.
void expect_decisions_follow_the_rule(const std::filesystem::path& dir, int reduction_factor) {
  std::map<int, std::vector<std::optional<double>>> earlier;
  for (const RungEntry& e : read_rung_records(dir)) {
    EXPECT_EQ(e.continued, asha_verdict(earlier[e.rung], e.value, true, reduction_factor).continued)
        << e.id << " at rung " << e.rung;
    earlier[e.rung].push_back(e.value);
  }
}

TEST(AshaSweep, MostTrialsStopAtTheFirstRungAndTheTestSetWaitsForTheEnd) {
  TempDir tmp;
  const std::string file = asha_file(tmp);
  auto dry = run_runner("sweep " + file + " --output " + quoted(tmp / "out") + " --dry-run");
  ASSERT_EQ(dry.exit_code, 0) << dry.output;
  EXPECT_NE(dry.output.find("asha: rungs at epochs 1, 2 of 4 by val_accuracy (max)"),
            std::string::npos)
      << dry.output;
  auto run = run_runner("sweep " + file + " --output " + quoted(tmp / "out") + " -q");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto dir = tmp / "out" / "asha";
  int at_first_rung = 0, to_the_end = 0;
  for (const auto& [id, report] : reports(dir)) {
    ASSERT_TRUE(report.is_object()) << id;
    EXPECT_TRUE(schema_problems("report.schema.json", report).empty())
        << id << ": " << schema_problems("report.schema.json", report)[0];
    EXPECT_EQ(report["asha"]["rungs"], json({1, 2})) << id;
    const json& epochs = report["epochs"];
    for (std::size_t e = 0; e + 1 < epochs.size(); ++e) {
      EXPECT_FALSE(epochs[e].contains("test_accuracy")) << id << " epoch " << e + 1;
    }
    if (report["status"] == "stopped_early") {
      EXPECT_EQ(report["stop_reason"], "asha") << id;
      EXPECT_FALSE(epochs.back().contains("test_accuracy")) << id;
      EXPECT_FALSE(report["metrics"].contains("test_accuracy")) << id;
      EXPECT_TRUE(report["metrics"]["val_accuracy"].is_number()) << id;
      EXPECT_NE(report["error"].get<std::string>().find("the top"), std::string::npos) << id;
      at_first_rung += epochs.size() == 1;
    } else {
      ASSERT_EQ(report["status"], "completed") << id;
      ASSERT_EQ(epochs.size(), 4u) << id;
      EXPECT_TRUE(epochs.back().contains("test_accuracy")) << id;
      EXPECT_TRUE(report["metrics"]["test_accuracy"].is_number()) << id;
      ++to_the_end;
    }
  }
  EXPECT_GE(at_first_rung, 4) << run.output;  // most of the 8
  EXPECT_GE(to_the_end, 1) << run.output;
  expect_decisions_follow_the_rule(dir, 2);

  const json summary = read_json(dir / "summary.json");
  EXPECT_TRUE(schema_problems("summary.schema.json", summary).empty())
      << schema_problems("summary.schema.json", summary)[0];
  const json& asha = summary["search"]["asha"];
  EXPECT_EQ(asha["stopped_early"], 8 - to_the_end);
  EXPECT_EQ(asha["epochs_without_stopping"], 32);
  EXPECT_LT(asha["epochs_trained"].get<int>(), 32);
  ASSERT_EQ(asha["rungs"].size(), 2u);
  EXPECT_EQ(asha["rungs"][0]["recorded"], 8);
  const std::string best = summary["best"]["id"];
  EXPECT_EQ(reports(dir)[best]["status"], "completed") << best;  // never a trial cut short
  const std::string markdown = read_file(dir / "summary.md");
  EXPECT_NE(markdown.find("with ASHA (" + std::to_string(8 - to_the_end) + " stopped early"),
            std::string::npos)
      << markdown;
  EXPECT_EQ(markdown.find("Points that did not complete"), std::string::npos) << markdown;

  auto status = run_runner("sweep status " + quoted(dir));
  EXPECT_EQ(status.exit_code, 0) << status.output;
  EXPECT_NE(status.output.find("asha: after epoch 1: 8 recorded"), std::string::npos)
      << status.output;

  if (has_matplotlib()) {  // each trial's line per epoch, the stopped ones ending at their rung
    const std::string plot = read_file(dir / "plots" / "val_accuracy_epochs.svg");
    for (const auto& [id, report] : reports(dir)) EXPECT_NE(plot.find(id), std::string::npos) << id;
  }

  // A trial that went on trained on exactly, and a stopped one reruns to the same stop.
  for (const auto& [id, report] : reports(dir)) {
    if (report["status"] != "completed" && report["epochs"].size() != 1) continue;
    auto again = run_runner("reproduce " + quoted(dir / id / "report.json") + " --output " +
                            quoted(tmp / "again") + " -q");
    EXPECT_EQ(again.exit_code, 0) << id << ": " << again.output;
  }
}

TEST(AshaSweep, TrialsRunTwoAtATimeDecideInTurn) {
  TempDir tmp;
  auto run =
      run_runner("sweep " + asha_file(tmp) + " --output " + quoted(tmp / "out") + " --jobs 2 -q");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto dir = tmp / "out" / "asha";
  const auto records = read_rung_records(dir);
  expect_decisions_follow_the_rule(dir, 2);
  int completed = 0;
  for (const auto& [id, report] : reports(dir)) {
    ASSERT_TRUE(report.is_object()) << id;
    // Each trial trained to the rung its last record stopped it at, or to the end.
    int last_rung = 0;
    bool went_on = true;
    for (const RungEntry& e : records) {
      if (e.id != id) continue;
      last_rung = e.rung;
      went_on = e.continued;
    }
    const std::size_t epochs = report["epochs"].size();
    EXPECT_EQ(epochs, went_on ? 4u : static_cast<std::size_t>(last_rung)) << id;
    EXPECT_EQ(report["status"], went_on ? "completed" : "stopped_early") << id;
    completed += report["status"] == "completed";
  }
  EXPECT_GE(completed, 1);
}

TEST(AshaSweep, AResumeAfterKillNineLosesNoTrialAndRunsNoneTwice) {
  TempDir tmp;
  const std::string args = "sweep " + asha_file(tmp) + " --output " + quoted(tmp / "out") + " -q";
  auto killed =
      run_command("RUNNER_TEST_KILL_AFTER_POINTS=3 " + std::string(RUNNER_BINARY) + " " + args);
  ASSERT_NE(killed.exit_code, 0) << killed.output;
  const auto dir = tmp / "out" / "asha";
  const auto before = read_rung_records(dir);
  ASSERT_FALSE(before.empty());
  auto resumed = run_runner(args);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("3 skipped as done"), std::string::npos) << resumed.output;
  const auto after = read_rung_records(dir);
  std::map<std::pair<std::string, int>, int> seen;
  for (const RungEntry& e : after) ++seen[{e.id, e.rung}];
  for (const auto& [key, n] : seen) EXPECT_EQ(n, 1) << key.first << " rung " << key.second;
  ASSERT_GE(after.size(), before.size());
  for (std::size_t i = 0; i < before.size(); ++i) {  // the first decisions stand, in their order
    EXPECT_EQ(after[i].id, before[i].id);
    EXPECT_EQ(after[i].continued, before[i].continued);
  }
  for (const auto& [id, report] : reports(dir)) ASSERT_TRUE(report.is_object()) << id;

  // A trial whose process died after its rung was judged (its report gone) reruns to the same
  // decision, recorded once.
  std::string stopped;
  for (const auto& [id, report] : reports(dir)) {
    if (report["status"] == "stopped_early") stopped = id;
  }
  ASSERT_FALSE(stopped.empty());
  std::filesystem::remove(dir / stopped / "report.json");
  auto rerun = run_runner(args);
  ASSERT_EQ(rerun.exit_code, 0) << rerun.output;
  EXPECT_EQ(read_json(dir / stopped / "report.json")["status"], "stopped_early");
  EXPECT_EQ(read_rung_records(dir).size(), after.size());
}

TEST(AshaSweep, BadSettingsAreRefusedNamingTheField) {
  TempDir tmp;
  auto refused = [&](const std::string& file, const std::string& expected) {
    auto result = run_runner("sweep " + file + " --output " + quoted(tmp / "out") + " --dry-run");
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_NE(result.output.find(expected), std::string::npos) << result.output;
  };
  refused(asha_file(tmp, "{min_epochs: 4, max_epochs: 4}"), "min_epochs 4 is not below");
  refused(asha_file(tmp, "{min_epochs: 4, max_epochs: 4}"), "asha.yaml:");
  refused(asha_file(tmp, "{reduction_factor: 1}"), "reduction_factor");
  refused(asha_file(tmp, "{metric: test_accuracy}"), "metric");
  const std::string both = tmp.write("both.yaml", "name: both\nbase: " + tiny_config() +
                                                      "\nset: [dataset.validation_split=0.2]\n"
                                                      "sweep:\n  grid: {training.epochs: [2, 4]}\n"
                                                      "  asha: {max_epochs: 4}\n")
                               .string();
  refused(both, "training.epochs is both an axis and sweep.asha.max_epochs");
  const std::string bench = tmp.write("bench.yaml", "name: bench\nbase: " + tiny_config() +
                                                        "\nmode: benchmark\n"
                                                        "sweep:\n  grid: {model.width: [1, 2]}\n"
                                                        "  asha: {max_epochs: 4}\n")
                                .string();
  refused(bench, "needs mode: train");
  const std::string metrics =
      tmp.write("metrics.yaml",
                "name: metrics\nbase: " + tiny_config() +
                    "\nset: [dataset.validation_split=0.2]\nsweep:\n  random:\n    trials: 2\n"
                    "    metric: val_loss\n    space: {training.optimizer.lr: {uniform: [0.01, "
                    "0.1]}}\n  asha: {metric: val_accuracy, max_epochs: 4}\n")
          .string();
  refused(metrics, "sweep.asha selects by val_accuracy (max) but sweep.random by val_loss (min)");
  const std::string unseen =
      tmp.write("unseen.yaml", "name: unseen\nbase: " + tiny_config() +
                                   "\nsweep:\n  grid: {model.width: [1, 2]}\n"
                                   "  asha: {max_epochs: 4}\n")
          .string();
  // Its points are invalid: said in the plan, and the sweep runs none of them.
  auto result = run_runner("sweep " + unseen + " --output " + quoted(tmp / "out"));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("needs a validation set"), std::string::npos) << result.output;
  // A metric's figure: the points must measure it (their config's metrics list it).
  const auto by_f1 = [&](const std::string& name, const std::string& set) {
    return tmp
        .write(name, "name: f1\nbase: " + tiny_config() + "\nset: [" + set +
                         "]\nsweep:\n  grid: {model.width: [1, 2]}\n"
                         "  asha: {metric: val_macro_f1, max_epochs: 4}\n")
        .string();
  };
  result = run_runner("sweep " + by_f1("unlisted.yaml", "dataset.validation_split=0.2") +
                      " --output " + quoted(tmp / "out"));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("val_macro_f1 is a figure of the metric macro_f1"),
            std::string::npos)
      << result.output;
  result = run_runner("sweep " +
                      by_f1("listed.yaml", "dataset.validation_split=0.2, 'metrics=[macro_f1]'") +
                      " --output " + quoted(tmp / "out") + " --dry-run");
  EXPECT_EQ(result.exit_code, 0) << result.output;
}

// training.ema's average as what the search ranks by (val_ema_accuracy): the rungs compare each
// trial's average, the best point is the one whose average scored best, and a point whose config
// keeps no average is refused, naming the setting, for ASHA and a plain random search alike.
TEST(AshaSweep, TheWeightAverageCanBeWhatTheTrialsAreRankedBy) {
  TempDir tmp;
  const auto file = [&](const std::string& name, const std::string& set, const std::string& asha) {
    return tmp
        .write(name, "name: ema\nbase: " + tiny_config() +
                         "\nset: [dataset.validation_split=0.2, " + set +
                         "]\nsweep:\n  random:\n    trials: 4\n    seed: 5\n"
                         "    metric: val_ema_accuracy\n    space:\n"
                         "      training.optimizer.lr: {log_uniform: [1.0e-3, 0.3]}\n" +
                         asha)
        .string();
  };
  const std::string with_ema =
      file("ema.yaml", "'training.ema={decay: 0.9}'",
           "  asha: {min_epochs: 1, max_epochs: 2, reduction_factor: 2}\n");
  auto run = run_runner("sweep " + with_ema + " --output " + quoted(tmp / "out") + " -q");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto dir = tmp / "out" / "ema";
  const auto trials = reports(dir);
  for (const RungEntry& e : read_rung_records(dir)) {
    const json& epoch = trials.at(e.id)["epochs"][e.rung - 1];
    ASSERT_TRUE(e.value) << e.id;
    EXPECT_EQ(*e.value, epoch["val_ema_accuracy"].get<double>()) << e.id;
  }
  const json summary = read_json(dir / "summary.json");
  EXPECT_EQ(summary["search"]["metric"], "val_ema_accuracy");
  double best = -1;
  for (const json& row : summary["points"]) {
    if (row["status"] == "completed") best = std::max(best, row["val_ema_accuracy"].get<double>());
  }
  const std::string best_id = summary["best"]["id"];
  EXPECT_EQ(trials.at(best_id)["metrics"]["val_ema_accuracy"].get<double>(), best) << best_id;

  for (const std::string& asha : {std::string("  asha: {max_epochs: 2}\n"), std::string()}) {
    auto refused = run_runner("sweep " + file("plain.yaml", "training.threads=1", asha) +
                              " --output " + quoted(tmp / "refused"));
    EXPECT_EQ(refused.exit_code, 2) << refused.output;
    EXPECT_NE(refused.output.find(
                  std::string(asha.empty() ? "sweep.random.metric" : "sweep.asha.metric") +
                  ": val_ema_accuracy is a figure of training.ema's weight average"),
              std::string::npos)
        << refused.output;
  }
}

}  // namespace
}  // namespace runner::testing
