// Every input under tests/fuzz/crashes-report (each read past the end of a map, let a raw
// nlohmann::json exception out or overflowed a conversion in a reader of reports once) now goes
// through every reader (tests/fuzz/report_path.h) without a crash; and what each reader answers.
#include <gtest/gtest.h>

#include "crash_inputs.h"
#include "report_path.h"
#include "runner/report/read_report.h"
#include "runner/sweep/point_state.h"
#include "runner/sweep/summary.h"
#include "runner/util/errors.h"
#include "runner/util/files.h"
#include "test_support.h"

namespace runner::fuzzing {
namespace {

constexpr const char* kFolder = "crashes-report";

class ReportCrashInput : public ::testing::TestWithParam<std::string> {};

TEST_P(ReportCrashInput, IsReadOrRefusedWithAUserError) {
  const std::string text = crash_input(kFolder, GetParam());
  testing::TempDir dir;
  EXPECT_EQ(outcome_in_child([&] { check_report_text(text, dir.path()); }), "") << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Crashes, ReportCrashInput, ::testing::ValuesIn(crash_inputs(kFolder)),
                         crash_test_name);

TEST(ReportCrashInputs, FolderIsNotEmpty) {
  EXPECT_FALSE(crash_inputs(kFolder).empty()) << kFolder;
}

// The point's report in a folder of its own, as a sweep keeps it.
std::filesystem::path write_report(const testing::TempDir& dir, const std::string& input) {
  std::filesystem::path report = dir / "point" / "report.json";
  write_file_atomically(report, crash_input(kFolder, input));
  return report;
}

TEST(ReportCrashInputs, AResumedSweepReadsAFieldOfAnotherTypeAsMissing) {
  PlannedPoint planned;
  planned.valid = true;
  planned.point_sha = std::string(64, '0');
  testing::TempDir dir;
  auto report = write_report(dir, "status-a-number.json");
  EXPECT_EQ(point_state(report, planned), PointState::unfinished);
  EXPECT_EQ(describe_state(PointState::unfinished, report, false), "rerun: was unreadable");
  EXPECT_EQ(point_state(write_report(dir, "sweep-point-a-number.json"), planned),
            PointState::changed);
  EXPECT_EQ(point_state(write_report(dir, "point-sha256-a-number.json"), planned),
            PointState::changed);
}

TEST(ReportCrashInputs, ANumberBeyondADoubleIsNotAJsonReport) {
  testing::TempDir dir;
  auto report = write_report(dir, "number-beyond-double.json");
  try {
    read_report_file(report);
    FAIL() << "1e400 was read";
  } catch (const UserError& error) {
    EXPECT_EQ(std::string(error.what()),
              report.string() + ": not a JSON report: number overflow parsing '1e400'");
  }
}

TEST(ReportCrashInputs, ASummaryReadsMissingFiguresAsNullAndListsBadEpochsAsUnreadable) {
  testing::TempDir dir;
  write_report(dir, "epoch-without-train-loss.json");
  nlohmann::json row = summarize_folder(dir.path())["points"][0];
  EXPECT_TRUE(row["final_loss"].is_null()) << row;
  write_report(dir, "sweep-point-without-values.json");
  row = summarize_folder(dir.path())["points"][0];
  EXPECT_EQ(row["values"], nlohmann::json::object()) << row;
  for (const char* input : {"epoch-a-string.json", "epoch-beyond-int.json"}) {
    auto report = write_report(dir, input);
    try {
      summarize_folder(dir.path());
      FAIL() << input << " was summarised";
    } catch (const UserError& error) {  // the folder's only report, unreadable
      EXPECT_NE(std::string(error.what())
                    .find(report.string() + ": not a report of this runner "
                                            "(epochs: epoch "),
                std::string::npos)
          << error.what();
    }
  }
}

}  // namespace
}  // namespace runner::fuzzing
