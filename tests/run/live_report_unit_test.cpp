// LiveReport: the live record carries the thread changes so far; abandon: a run ended by an
// exception after its live report was written leaves a failed record with the error, not one
// that keeps saying it runs (and a page that reloads).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "runner/config/schema_check.h"
#include "runner/config/schema_file.h"
#include "runner/run/live_report.h"
#include "runner/util/files.h"
#include "test_support.h"

namespace runner {
namespace {

TEST(LiveReportUnit, AnExceptionAfterAnEpochLeavesAFailedRecordWithTheError) {
  testing::TempDir tmp;
  RunRecord head;
  head.schema_version = 1;
  head.mode = RunMode::train;
  head.name = "tiny";
  head.run_id = "run";
  head.config = nlohmann::json{{"name", "tiny"}};
  head.started_at = "2026-12-07T10:00:00+0000";
  Console console(true);
  int pages = 0;
  // A replayed change at step 0 (made before compiling): the live record carries it, so a run
  // killed after this epoch leaves the thread changes `reproduce` replays.
  StepThreads threads = StepThreads::replayed(2, {{0, 1, 0.5}});
  ASSERT_EQ(threads.before_compile(), 1);
  LiveReport live(
      head, tmp.path(), 5, SteadyClock::now(),
      [&](const RunRecord&, const std::filesystem::path&) { ++pages; }, nullptr, &threads, console);
  live.abandon("nothing written yet");  // before any live record: nothing to rewrite
  EXPECT_FALSE(std::filesystem::exists(tmp / "report.json"));

  TrainingOutcome so_far;
  EpochRecord epoch;
  epoch.epoch = 1;
  epoch.train_loss = 2.0;
  epoch.seconds = 0.5;
  epoch.images_per_second = 100;
  epoch.step = 8;
  so_far.epochs.push_back(epoch);
  live.update(so_far);
  const nlohmann::json running = nlohmann::json::parse(read_file(tmp / "report.json"));
  EXPECT_EQ(running["status"], "running");
  EXPECT_EQ(running["cpu"]["threads"], 2);
  ASSERT_EQ(running["cpu"]["thread_changes"].size(), 1u) << running["cpu"].dump();
  EXPECT_EQ(running["cpu"]["thread_changes"][0]["step"], 0);
  EXPECT_EQ(running["cpu"]["thread_changes"][0]["threads"], 1);

  live.abandon("tmp/photos/a.jpg: truncated JPEG");
  const nlohmann::json failed = nlohmann::json::parse(read_file(tmp / "report.json"));
  EXPECT_EQ(failed["status"], "failed");
  EXPECT_EQ(failed["error"], "tmp/photos/a.jpg: truncated JPEG");
  EXPECT_FALSE(failed.contains("progress")) << "a page without progress does not reload";
  EXPECT_EQ(failed["epochs"].size(), 1u);
  EXPECT_EQ(pages, 2) << "the page is drawn again from the failed record";
  for (const auto& v : schema_violations(load_schema("report.schema.json"), failed))
    ADD_FAILURE() << v.description;
}

}  // namespace
}  // namespace runner
