// RunHistory: the earlier stretches of a run resumed in its folder, from the report there: kept
// up to the checkpoint's epoch, a killed run's gap named, and no history where the checkpoint is
// in no run's folder or in a sweep's point.
#include "runner/run/run_history.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "runner/util/files.h"
#include "test_support.h"

namespace runner {
namespace {

using nlohmann::json;

// A live report left by a run killed in epoch 4: epochs 1-3 recorded, loss points up to epoch 4.
json killed_report() {
  json epochs = json::array(), train = json::array(), test = json::array();
  for (int e = 1; e <= 3; ++e) {
    epochs.push_back(
        {{"epoch", e}, {"train_loss", 1.0 / e}, {"seconds", 0.5}, {"images_per_second", 100.0}});
    test.push_back({{"step", 10 * e}, {"epoch", e}, {"loss", 1.0 / e}, {"accuracy", 0.5}});
  }
  for (int step = 5; step <= 35; step += 5)
    train.push_back({{"step", step}, {"epoch", (step - 1) / 10 + 1}, {"loss", 1.0}, {"lr", 0.1}});
  return {{"schema_version", 1},
          {"mode", "train"},
          {"status", "running"},
          {"name", "tiny"},
          {"run_id", "run"},
          {"config", {{"name", "tiny"}, {"checkpoint", {{"path", "checkpoints/c.safetensors"}}}}},
          {"epochs", epochs},
          {"curves", {{"train", train}, {"test", test}}},
          {"progress", {{"epochs_done", 3}, {"epochs_planned", 9}, {"elapsed_seconds", 2.0}}},
          {"argv", {"runner", "run", "tiny.yaml"}},
          {"started_at", "2026-12-07T10:00:00+0000"},
          {"finished_at", "2026-12-07T10:00:02+0000"}};
}

// This stretch's report: epochs from `first` + 1 to `last`, as the trainer records them.
RunRecord stretch(int first, int last) {
  RunRecord r;
  r.status = RunStatus::completed;
  r.epochs.emplace();
  r.curves.emplace();
  r.curves->train.emplace();
  for (int e = first + 1; e <= last; ++e) {
    RecordEpoch epoch;
    epoch.epoch = e;
    r.epochs->push_back(epoch);
    r.curves->train->push_back({10 * e, e, 0.5, 0.1, {}});
  }
  r.started_at = "2026-12-07T11:00:00+0000";
  r.finished_at = "2026-12-07T11:00:05+0000";
  return r;
}

std::vector<int> epochs_of(const RunRecord& r) {
  std::vector<int> out;
  for (const RecordEpoch& e : *r.epochs) out.push_back(*e.epoch);
  return out;
}

TEST(RunHistory, KeepsTheEarlierEpochsUpToTheCheckpointAndNamesAKilledRunsGap) {
  testing::TempDir tmp;
  const auto run_dir = tmp / "runs" / "tiny" / "run";
  write_file_atomically(run_dir / "report.json", killed_report().dump());

  // Resumed from epoch 2 (the last-epoch file beside checkpoint.path, one level down): epoch 3 is
  // trained again.
  const auto from_two =
      RunHistory::of_checkpoint(run_dir / "checkpoints" / "c.last.safetensors", 2);
  ASSERT_TRUE(from_two);
  EXPECT_EQ(from_two->run_dir(), run_dir);
  EXPECT_EQ(from_two->missing_epochs(), "");
  RunRecord record = stretch(2, 5);
  from_two->complete(record);
  EXPECT_EQ(epochs_of(record), (std::vector<int>{1, 2, 3, 4, 5}));
  ASSERT_EQ(record.curves->train->size(), 4u + 3u);  // steps 5-20 of epochs 1-2, then 30, 40, 50
  EXPECT_EQ(*record.curves->train->at(3).step, 20);
  EXPECT_EQ(*record.curves->train->at(4).step, 30);
  ASSERT_EQ(record.curves->test->size(), 2u);
  EXPECT_EQ(record.started_at, "2026-12-07T10:00:00+0000") << "when the run first started";
  ASSERT_EQ(record.segments->size(), 2u);
  const RecordSegment& killed = record.segments->at(0);
  EXPECT_EQ(killed.ended, "killed");
  EXPECT_EQ(killed.first_epoch, 0);
  EXPECT_EQ(killed.epochs_done, 3);
  EXPECT_EQ(killed.finished_at, "2026-12-07T10:00:02+0000") << "its last live report";
  const RecordSegment& now = record.segments->at(1);
  EXPECT_EQ(now.ended, "completed");
  EXPECT_EQ(now.first_epoch, 2);
  EXPECT_EQ(now.epochs_done, 5);

  // Resumed from epoch 5, past what the live report held: epochs 4 and 5 are named missing.
  const auto from_five = RunHistory::of_checkpoint(run_dir / "checkpoints" / "c.safetensors", 5);
  ASSERT_TRUE(from_five);
  EXPECT_NE(from_five->missing_epochs().find("epochs 4 to 5 stay out"), std::string::npos)
      << from_five->missing_epochs();
  RunRecord later = stretch(5, 6);
  from_five->complete(later);
  EXPECT_EQ(epochs_of(later), (std::vector<int>{1, 2, 3, 6}));

  // A resumed run killed in turn and resumed again: its segments go on, the last as it ended.
  json twice = killed_report();
  twice["segments"] = {{{"started_at", "a"},
                        {"finished_at", "b"},
                        {"ended", "interrupted"},
                        {"first_epoch", 0},
                        {"epochs_done", 2}},
                       {{"started_at", "c"},
                        {"finished_at", "c"},
                        {"ended", "running"},
                        {"first_epoch", 1},
                        {"epochs_done", 1}}};
  twice["resumed_from"] = {{"path", "c"}, {"sha256", std::string(64, 'a')}, {"epochs_done", 1}};
  write_file_atomically(run_dir / "report.json", twice.dump());
  RunRecord third = stretch(3, 4);
  RunHistory::of_checkpoint(run_dir / "checkpoints" / "c.safetensors", 3)->complete(third);
  ASSERT_EQ(third.segments->size(), 3u);
  EXPECT_EQ(third.segments->at(0).ended, "interrupted");
  EXPECT_EQ(third.segments->at(1).ended, "killed") << "the stretch as it ended";
  EXPECT_EQ(third.segments->at(1).epochs_done, 3);
  EXPECT_EQ(third.started_at, "a");
}

// The threads a run followed (a busy machine changes them): `reproduce` replays them from the
// resumed report, so it holds the earlier stretch's changes before the resumed step, the first
// stretch's count from step 0, and this stretch's count from the resumed step.
TEST(RunHistory, TheThreadChangesOfEveryStretchAreKeptForReproduce) {
  testing::TempDir tmp;
  json earlier = killed_report();
  earlier["environment"] = {
      {"runner_version", "1"},  {"git_commit", "c"},    {"git_dirty", false},
      {"compiler", "g++"},      {"compiler_flags", ""}, {"onednn_version", "2.6"},
      {"onednn_isa", "avx512"}, {"cpu_model", "cpu"},   {"threads", 4},
      {"os", "linux"},          {"hostname", "a"}};
  earlier["cpu"] = {{"process_cpu_seconds", 1.0},
                    {"wall_seconds", 1.0},
                    {"cpu_time_over_wall", 1.0},
                    {"threads", 4},
                    {"utilisation", 0.5},
                    {"thread_changes",
                     {{{"step", 12}, {"threads", 1}, {"free_cores", 0.9}},
                      {{"step", 25}, {"threads", 2}, {"free_cores", 2.1}}}}};
  write_file_atomically(tmp / "run" / "report.json", earlier.dump());
  // Resumed from epoch 2, which ended at step 20: the change at step 25 is in a redone epoch.
  const auto history = RunHistory::of_checkpoint(tmp / "run" / "checkpoints" / "c.safetensors", 2);
  ASSERT_TRUE(history);
  RunRecord record = stretch(2, 3);
  record.environment.emplace();
  record.environment->threads = 2;  // this stretch started with 2 threads
  record.cpu.emplace();
  record.cpu->thread_changes = {{30, 1, 0.8, {}}};
  history->complete(record);
  std::vector<std::pair<std::int64_t, int>> changes;
  for (const RecordThreadChange& c : *record.cpu->thread_changes)
    changes.emplace_back(*c.step, *c.threads);
  EXPECT_EQ(changes,
            (std::vector<std::pair<std::int64_t, int>>{{0, 4}, {12, 1}, {20, 2}, {30, 1}}));

  // A stretch fitted to a busy machine records its first count at step 0, when it compiled: in
  // the whole run that count starts at the resumed step.
  RunRecord fitted = stretch(2, 3);
  fitted.environment.emplace();
  fitted.environment->threads = 2;
  fitted.cpu.emplace();
  fitted.cpu->thread_changes = {{0, 1, 0.7, {}}, {30, 2, 1.9, {}}};
  history->complete(fitted);
  changes.clear();
  for (const RecordThreadChange& c : *fitted.cpu->thread_changes)
    changes.emplace_back(*c.step, *c.threads);
  EXPECT_EQ(changes,
            (std::vector<std::pair<std::int64_t, int>>{{0, 4}, {12, 1}, {20, 1}, {30, 2}}));
}

TEST(RunHistory, NoHistoryOutsideARunFolderOrInASweepsPoint) {
  testing::TempDir tmp;
  EXPECT_FALSE(RunHistory::of_checkpoint(tmp / "a" / "b" / "c" / "d" / "c.safetensors", 1));
  // A run's report above a checkpoint its run did not write (another file, elsewhere inside).
  write_file_atomically(tmp / "run" / "report.json", killed_report().dump());
  EXPECT_TRUE(RunHistory::of_checkpoint(tmp / "run" / "checkpoints" / "c.safetensors", 1));
  EXPECT_FALSE(RunHistory::of_checkpoint(tmp / "run" / "checkpoints" / "other.safetensors", 1));
  EXPECT_FALSE(RunHistory::of_checkpoint(tmp / "run" / "mine" / "c.safetensors", 1));
  json point = killed_report();
  point["sweep_point"] = {{"sweep", "s"},
                          {"id", "p0"},
                          {"index", 0},
                          {"values", json::object()},
                          {"overrides", json::array()},
                          {"point_sha256", std::string(64, 'b')}};
  write_file_atomically(tmp / "point" / "report.json", point.dump());
  EXPECT_FALSE(RunHistory::of_checkpoint(tmp / "point" / "checkpoints" / "c.safetensors", 1));
  // A report there that is not one: an error naming it, not a silent new folder.
  write_file_atomically(tmp / "broken" / "report.json", "{\"status\": 3}");
  EXPECT_THROW(RunHistory::of_checkpoint(tmp / "broken" / "c.safetensors", 1), UserError);
}

}  // namespace
}  // namespace runner
