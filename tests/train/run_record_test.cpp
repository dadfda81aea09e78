// The typed run record: every report committed under results/ reads into it with nothing left
// unmodelled and writes back to the same JSON; damaged reports read leniently and still write
// back as they were; the config's facts and the status are values.
#include "runner/report/run_record.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_support.h"

namespace runner::testing {
namespace {

using nlohmann::json;

json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  return json::parse(in);
}

std::vector<std::filesystem::path> files_below(const std::filesystem::path& dir,
                                               const std::string& suffix) {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.size() >= suffix.size() && name.ends_with(suffix)) out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(RunRecordJson, EveryCommittedReportReadsWholeAndWritesBackTheSame) {
  const auto reports = files_below(source_dir() / "results", ".report.json");
  ASSERT_GE(reports.size(), 10u) << "the committed reports under results/";
  for (const auto& path : reports) {
    SCOPED_TRACE(path.string());
    const json original = read_json(path);
    const RunRecord record = run_record_from_json(original);
    EXPECT_TRUE(record.unmodelled.is_null()) << record.unmodelled.dump();
    ASSERT_TRUE(record.status && record.mode && record.device && record.environment);
    EXPECT_EQ(*record.status, RunStatus::completed);
    EXPECT_EQ(*record.mode, RunMode::train);
    EXPECT_TRUE(record.environment->unmodelled.is_null()) << record.environment->unmodelled.dump();
    ASSERT_TRUE(record.metrics && record.metrics->test_accuracy && record.epochs);
    EXPECT_TRUE(record.metrics->unmodelled.is_null()) << record.metrics->unmodelled.dump();
    EXPECT_EQ(*record.metrics->test_accuracy, original["metrics"]["test_accuracy"].get<double>());
    for (const RecordEpoch& epoch : *record.epochs) EXPECT_TRUE(epoch.unmodelled.is_null());
    EXPECT_EQ(record.epochs->size(), original["epochs"].size());
    ASSERT_TRUE(record.data && record.data->files && record.model && record.model->layers);
    EXPECT_TRUE(record.data->unmodelled.is_null()) << record.data->unmodelled.dump();
    EXPECT_TRUE(record.memory && record.memory->estimate &&
                record.memory->estimate->count("total"));
    EXPECT_EQ(run_record_json(record), original);
  }
}

TEST(RunRecordJson, ConfigFactsAreValues) {
  RunRecord record;
  record.config = json::parse(R"({"name": "lenet", "device": "cuda:1",
      "dataset": {"root": "/data"}, "model": {"width": 2},
      "training": {"batch_size": 64, "epochs": 3, "precision": "bf16"}})");
  const RecordConfigFacts facts = record.config_facts();
  EXPECT_EQ(facts.name, "lenet");
  EXPECT_EQ(facts.dataset_root, "/data");
  ASSERT_TRUE(facts.device);
  EXPECT_TRUE(facts.device->is_cuda());
  EXPECT_EQ(facts.device->gpu_index(), 1);
  EXPECT_EQ(facts.batch_size, 64);
  EXPECT_EQ(facts.epochs, 3);
  EXPECT_EQ(facts.width, 2.0);
  EXPECT_EQ(facts.precision, Precision::bf16);
  record.config = json::parse(R"({"device": "gpu", "training": {"batch_size": "64"}})");
  EXPECT_FALSE(record.config_facts().device);
  EXPECT_FALSE(record.config_facts().batch_size);
  EXPECT_FALSE(RunRecord().config_facts().name);
}

TEST(RunRecordJson, StatusIsReadOrUnreadableOrNone) {
  EXPECT_TRUE(run_record_from_json(json{{"status", "stopped_early"}})
                  .reported_status()
                  .is(RunStatus::stopped_early));
  const RunRecord forged = run_record_from_json(json{{"status", 5}, {"mode", "sleep"}});
  EXPECT_EQ(forged.reported_status().kind, ReportedStatus::Kind::unreadable);
  EXPECT_FALSE(forged.status);
  EXPECT_FALSE(forged.mode);
  EXPECT_EQ(run_record_from_json(json::object()).reported_status().kind,
            ReportedStatus::Kind::none);
  EXPECT_EQ(run_record_from_json(json{{"mode", "eval"}}).mode, RunMode::eval);
}

// A damaged field is absent from the record, kept as it was, and written back as it was.
TEST(RunRecordJson, DamagedFieldsAreAbsentAndKept) {
  const json damaged = json::parse(R"({
    "status": "completed", "seed": 18446744073709551615, "device": "tpu",
    "epochs": [{"epoch": 1, "train_loss": 2.0}, {"epoch": "two", "train_loss": null}],
    "metrics": {"test_accuracy": "high", "test_images": 1.5,
                "per_class_accuracy": {"cat": 0.5, "dog": null}},
    "checkpoint": {"path": "m.safetensors", "best_epoch": null},
    "curves": {"train": [1, 2], "test": []},
    "machine_load": {"cores": 2147483648, "load_average_start": 0.5},
    "newer_runner_field": {"x": 1}})");
  const RunRecord record = run_record_from_json(damaged);
  EXPECT_FALSE(record.seed);
  EXPECT_FALSE(record.device);
  ASSERT_TRUE(record.epochs);
  ASSERT_EQ(record.epochs->size(), 2u);
  EXPECT_EQ((*record.epochs)[0].epoch, 1);
  EXPECT_FALSE((*record.epochs)[1].epoch);
  EXPECT_FALSE((*record.epochs)[1].train_loss);
  ASSERT_TRUE(record.metrics);
  EXPECT_FALSE(record.metrics->test_accuracy);
  EXPECT_FALSE(record.metrics->test_images);
  ASSERT_TRUE(record.metrics->per_class_accuracy);
  ASSERT_EQ(record.metrics->per_class_accuracy->size(), 2u);
  EXPECT_EQ((*record.metrics->per_class_accuracy)[0].accuracy, 0.5);
  EXPECT_EQ((*record.metrics->per_class_accuracy)[1].name, "dog");
  EXPECT_FALSE((*record.metrics->per_class_accuracy)[1].accuracy);
  ASSERT_TRUE(record.checkpoint);
  EXPECT_FALSE(record.checkpoint->best_epoch);
  ASSERT_TRUE(record.curves);
  EXPECT_FALSE(record.curves->train);
  ASSERT_TRUE(record.curves->test);
  EXPECT_TRUE(record.curves->test->empty());
  EXPECT_FALSE(record.machine_load->cores);
  EXPECT_EQ(record.machine_load->load_average_start, 0.5);
  EXPECT_TRUE(record.unmodelled.contains("newer_runner_field"));
  EXPECT_EQ(run_record_json(record), damaged);
}

// The fuzzers' damaged reports, kept as test files: each reads without an exception and writes
// back as it was.
TEST(RunRecordJson, KeptDamagedReportsWriteBackAsTheyWere) {
  const auto files = files_below(source_dir() / "tests" / "fuzz" / "crashes-report", ".json");
  ASSERT_FALSE(files.empty());
  for (const auto& path : files) {
    SCOPED_TRACE(path.string());
    json original;
    try {
      original = read_json(path);
    } catch (const json::exception&) {
      continue;  // not JSON at all: the readers refuse it before the record
    }
    EXPECT_EQ(run_record_json(run_record_from_json(original)),
              original.is_object() ? original : json::object());
  }
}

TEST(RunRecordJson, TypedValuesWriteTheirNames) {
  RunRecord record;
  record.mode = RunMode::benchmark;
  record.status = RunStatus::out_of_memory;
  record.stop_reason = StopReason::early_stopping;
  record.device = Device::parse("cuda:0");
  record.checkpoint = RecordCheckpoint{};
  record.checkpoint->monitor = "val_loss";
  record.checkpoint->mode = MonitorMode::min;
  record.metrics = RecordMetrics{};
  record.metrics->per_class_accuracy = {{"b", 0.25}, {"a", std::nullopt}};
  const json written = run_record_json(record);
  EXPECT_EQ(written["mode"], "benchmark");
  EXPECT_EQ(written["status"], "out_of_memory");
  EXPECT_EQ(written["stop_reason"], "early_stopping");
  EXPECT_EQ(written["device"], "cuda:0");
  EXPECT_EQ(written["checkpoint"], (json{{"monitor", "val_loss"}, {"mode", "min"}}));
  EXPECT_EQ(written["metrics"]["per_class_accuracy"], (json{{"a", nullptr}, {"b", 0.25}}));
  EXPECT_FALSE(written.contains("error"));
}

}  // namespace
}  // namespace runner::testing
