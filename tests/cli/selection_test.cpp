// Validation split, early stopping and the best checkpoint, end to end with the runner binary:
// the report's test figures are the best epoch's weights tested once, `runner eval` of the kept
// file gives them exactly, a run resumed mid-patience equals the uninterrupted one (it stops at
// the same epoch and keeps the same best weights, bit for bit), and a class without test images
// is "n/a".
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "runner/config/schema_check.h"
#include "runner/config/schema_file.h"
#include "runner/train/safetensors.h"
#include "test_support.h"

namespace runner::testing {
namespace {

using nlohmann::json;

// tiny_synthetic (1024 images) with a fifth held out; its validation accuracy reaches 100 % in
// the second epoch and stays there: a plateau. One thread, so that the tiny steps stay fast on a
// busy machine.
std::string selecting(const std::string& patience) {
  return (source_dir() / "configs" / "tiny_synthetic.yaml").string() +
         " --set dataset.validation_split=0.2 --set training.threads=1 --set training.epochs=10"
         " --set checkpoint.path=net.safetensors --set checkpoint.monitor=val_accuracy"
         " --set 'training.early_stopping={monitor: val_accuracy, patience: " +
         patience + "}'";
}

struct Ran {
  CommandResult result;
  json report;
};

Ran run(const std::string& arguments) {
  Ran r;
  r.result = run_runner(arguments);
  std::ifstream in(report_path_in(r.result.output));
  if (in) r.report = json::parse(in);
  return r;
}

std::vector<std::uint32_t> bits(const std::vector<float>& values) {
  std::vector<std::uint32_t> out(values.size());
  if (!values.empty()) std::memcpy(out.data(), values.data(), values.size() * sizeof(float));
  return out;
}

// The tensors of two checkpoints, name by name, bit for bit, and the epoch they hold.
void expect_same_state(const std::string& a_path, const std::string& b_path) {
  const Checkpoint a = load_safetensors(a_path), b = load_safetensors(b_path);
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  std::map<std::string, const HostTensor*> named;
  for (const HostTensor& t : b.tensors) named[t.name] = &t;
  for (const HostTensor& t : a.tensors) {
    ASSERT_TRUE(named.count(t.name)) << t.name;
    EXPECT_EQ(bits(t.values), bits(named[t.name]->values)) << t.name;
    EXPECT_EQ(t.integers, named[t.name]->integers) << t.name;
  }
  EXPECT_EQ(a.metadata.at("epochs_done"), b.metadata.at("epochs_done"));
}

TEST(Selection, EarlyStoppingKeepsTheBestEpochAndEvalOfItGivesTheReportsTestFigures) {
  TempDir tmp;
  const std::string out = " --output " + tmp.path().string();
  Ran r = run(selecting("2") + out);
  ASSERT_EQ(r.result.exit_code, 0) << r.result.output;
  for (const auto& v : schema_violations(load_schema("report.schema.json"), r.report))
    ADD_FAILURE() << v.description;
  const json& epochs = r.report["epochs"];
  const json& metrics = r.report["metrics"];
  // Stopped by early stopping, the best epoch the first to reach the plateau.
  EXPECT_EQ(r.report["stop_reason"], "early_stopping");
  EXPECT_NE(r.result.output.find("early stopping after epoch"), std::string::npos)
      << r.result.output;
  const int best = metrics["best_epoch"];
  ASSERT_EQ(epochs.size(), static_cast<std::size_t>(best + 2)) << "patience 2 after the best";
  double highest = 0;
  for (const json& e : epochs) highest = std::max(highest, e["val_accuracy"].get<double>());
  EXPECT_EQ(epochs[best - 1]["val_accuracy"], highest);
  for (int e = 0; e < best - 1; ++e) EXPECT_LT(epochs[e]["val_accuracy"].get<double>(), highest);
  // The split's sizes; the per-epoch figures of both sets.
  EXPECT_EQ(r.report["data"]["train_images"].get<int>() +
                r.report["data"]["validation_images"].get<int>(),
            1024);
  EXPECT_NEAR(r.report["data"]["validation_images"].get<double>(), 205, 6);
  EXPECT_EQ(r.report["data"]["test_images"], 128);
  EXPECT_TRUE(epochs[0].contains("val_loss") && epochs[0].contains("test_loss"));
  // The metrics are the best epoch's weights (not the last's): their test loss is that epoch's.
  EXPECT_EQ(metrics["test_loss"], epochs[best - 1]["test_loss"]);
  EXPECT_NE(metrics["test_loss"], epochs.back()["test_loss"]);
  EXPECT_EQ(metrics["val_loss"], epochs[best - 1]["val_loss"]);
  const json& checkpoint = r.report["checkpoint"];
  EXPECT_EQ(checkpoint["best_epoch"], best);
  EXPECT_EQ(checkpoint["best_value"], highest);
  EXPECT_EQ(checkpoint["reload_matches"], true);
  EXPECT_EQ(checkpoint["epochs_done"], epochs.size());
  const std::string best_file = checkpoint["path"], last_file = checkpoint["last_path"];
  EXPECT_EQ(std::filesystem::path(last_file).filename(), "net.last.safetensors");
  EXPECT_EQ(load_safetensors(best_file).metadata.at("epochs_done"), std::to_string(best));

  // `runner eval` of the kept file: exactly the report's test figures.
  const std::string config = (source_dir() / "configs" / "tiny_synthetic.yaml").string();
  Ran eval = run("eval --quiet --checkpoint " + best_file + " " + config + out);
  ASSERT_EQ(eval.result.exit_code, 0) << eval.result.output;
  EXPECT_EQ(eval.report["metrics"]["test_accuracy"], metrics["test_accuracy"]);
  EXPECT_EQ(eval.report["metrics"]["test_loss"], metrics["test_loss"]);
  EXPECT_EQ(eval.report["metrics"]["confusion_matrix"], metrics["confusion_matrix"]);
  Ran last = run("eval --quiet --checkpoint " + last_file + " " + config + out);
  EXPECT_EQ(last.report["metrics"]["test_loss"], epochs.back()["test_loss"]);

  // Five test images of ten classes: the classes without one are n/a, null in the report.
  Ran few =
      run("eval --checkpoint " + best_file + " " + config + " --set dataset.test_limit=5" + out);
  ASSERT_EQ(few.result.exit_code, 0) << few.result.output;
  EXPECT_NE(few.result.output.find(" is n/a\n"), std::string::npos) << few.result.output;
  EXPECT_EQ(few.result.output.find(" is 0.0 %"), std::string::npos) << few.result.output;
  int absent = 0;
  for (const auto& [name, value] : few.report["metrics"]["per_class_accuracy"].items()) {
    absent += value.is_null();
  }
  EXPECT_GE(absent, 5);
  for (const auto& v : schema_violations(load_schema("report.schema.json"), few.report))
    ADD_FAILURE() << v.description;
}

TEST(Selection, AResumedRunGoesOnMidPatienceAndEndsAsTheUninterruptedOne) {
  TempDir tmp;
  Ran straight = run(selecting("3") + " --quiet --output " + (tmp / "a").string());
  ASSERT_EQ(straight.result.exit_code, 0) << straight.result.output;
  const int best = straight.report["metrics"]["best_epoch"];
  const int stopped = static_cast<int>(straight.report["epochs"].size());
  ASSERT_EQ(stopped, best + 3);
  // The first run ends one epoch into the patience; its last file carries the counter.
  Ran first = run(selecting("3") + " --quiet --set training.epochs=" + std::to_string(best + 1) +
                  " --output " + (tmp / "b").string());
  ASSERT_EQ(first.result.exit_code, 0) << first.result.output;
  EXPECT_EQ(first.report["stop_reason"], "epochs");
  Ran resumed = run(selecting("3") + " --resume " +
                    first.report["checkpoint"]["last_path"].get<std::string>() + " --output " +
                    (tmp / "c").string());
  ASSERT_EQ(resumed.result.exit_code, 0) << resumed.result.output;
  EXPECT_EQ(resumed.report["stop_reason"], "early_stopping");
  const json& rest = resumed.report["epochs"];
  ASSERT_EQ(rest.size(), static_cast<std::size_t>(stopped - best - 1));
  for (std::size_t e = 0; e < rest.size(); ++e) {
    const json& same = straight.report["epochs"][best + 1 + e];
    for (const char* key : {"epoch", "train_loss", "val_loss", "val_accuracy", "test_loss"}) {
      EXPECT_EQ(rest[e][key], same[key]) << key << " of epoch " << same["epoch"];
    }
  }
  EXPECT_EQ(resumed.report["metrics"], straight.report["metrics"]);
  EXPECT_EQ(resumed.report["checkpoint"]["best_epoch"], best);
  EXPECT_EQ(resumed.report["checkpoint"]["best_value"],
            straight.report["checkpoint"]["best_value"]);
  // The best weights kept (copied from the first run's folder) and the last state.
  expect_same_state(resumed.report["checkpoint"]["path"], straight.report["checkpoint"]["path"]);
  expect_same_state(resumed.report["checkpoint"]["last_path"],
                    straight.report["checkpoint"]["last_path"]);

  // Resumed once more from the stopped run's last file: nothing is left to train.
  Ran again = run(selecting("3") + " --resume " +
                  straight.report["checkpoint"]["last_path"].get<std::string>() + " --output " +
                  (tmp / "d").string());
  ASSERT_EQ(again.result.exit_code, 0) << again.result.output;
  EXPECT_NE(again.result.output.find("nothing left to train: early stopping ended"),
            std::string::npos)
      << again.result.output;
  EXPECT_EQ(again.report["stop_reason"], "early_stopping");
  EXPECT_EQ(again.report["metrics"], straight.report["metrics"]);
}

TEST(Selection, AMissingBestFileIsNamedWhenResuming) {
  TempDir tmp;
  Ran first =
      run(selecting("3") + " --quiet --set training.epochs=3 --output " + tmp.path().string());
  ASSERT_EQ(first.result.exit_code, 0) << first.result.output;
  std::filesystem::remove(first.report["checkpoint"]["path"].get<std::string>());
  Ran resumed = run(selecting("3") + " --resume " +
                    first.report["checkpoint"]["last_path"].get<std::string>() + " --output " +
                    tmp.path().string());
  EXPECT_EQ(resumed.result.exit_code, 2) << resumed.result.output;
  EXPECT_NE(resumed.result.output.find("net.safetensors, which is missing"), std::string::npos)
      << resumed.result.output;
}

}  // namespace
}  // namespace runner::testing
