// check_report_text: each reader runs on its own, so a UserError of the strict one (the schema)
// does not keep the lenient ones (sweeps and summaries) from reading the same text.
#include "report_path.h"

#include <cstdlib>
#include <fstream>

#include "cache_path.h"
#include "runner/data/csv_rows.h"
#include "runner/html/embedded_svg.h"
#include "runner/html/run_page.h"
#include "runner/html/sweep_page.h"
#include "runner/report/read_report.h"
#include "runner/report/run_record.h"
#include "runner/sweep/point_state.h"
#include "runner/sweep/rung_records.h"
#include "runner/sweep/summary.h"
#include "runner/sweep/summary_files.h"
#include "runner/sweep/summary_terminal.h"
#include "runner/util/bounded_json.h"
#include "runner/util/errors.h"

namespace runner::fuzzing {

namespace {

template <typename Read>
void allowing_user_errors(Read&& read) {
  try {
    read();
  } catch (const UserError&) {
  }
}

}  // namespace

void check_report_text(const std::string& text, const std::filesystem::path& folder) {
  const std::filesystem::path report = folder / "point" / "report.json";
  std::filesystem::create_directories(report.parent_path());
  std::ofstream(report, std::ios::binary | std::ios::trunc) << text;

  allowing_user_errors([&] { read_report_file(report); });
  allowing_user_errors([&] {
    PlannedPoint planned;  // a valid point whose report is complete only with this hash
    planned.valid = true;
    planned.point_sha = "0000000000000000000000000000000000000000000000000000000000000000";
    describe_state(point_state(report, planned), report, /*force=*/false);
  });
  allowing_user_errors([&] { summary_markdown(summarize_folder(folder)); });
  // The pages: a run's from the text read leniently (as a sweep's page reads its points'), the
  // sweep's and the terminal summary from the summary.
  const nlohmann::json lenient = read_json_leniently(report);
  const RunRecord record = run_record_from_json(lenient);
  // The record keeps what it does not model: written back, any object is the JSON it was.
  if (lenient.is_object() && run_record_json(record) != lenient) std::abort();
  run_page(record, report);
  allowing_user_errors([&] {
    const nlohmann::json summary = summarize_folder(folder);
    summary_terminal(summary);
    sweep_page(summary, folder);
  });
  // The same text as the sweep's plan, beside the report: the summary's rows, its search and
  // best point, and summary.md read sweep.json too.
  std::ofstream(folder / "sweep.json", std::ios::binary | std::ios::trunc) << text;
  allowing_user_errors([&] {
    const nlohmann::json summary = summarize_folder(folder);
    summary_markdown(summary);
    summary_terminal(summary);
    sweep_page(summary, folder);
  });
  std::filesystem::remove(folder / "sweep.json");
  check_sweep_folder_files(text, folder);
}

void check_sweep_folder_files(const std::string& text, const std::filesystem::path& folder) {
  // ASHA's records: read leniently by the summaries, refused (not rewritten) before a record.
  std::ofstream(folder / kRungRecords, std::ios::binary | std::ios::trunc) << text;
  read_rung_records(folder);
  allowing_user_errors([&] { record_at_rung(folder, AshaSpec{}, {"p", "sha", 1, 0.5, false}); });
  std::filesystem::remove(folder / kRungRecords);
  // A plot as the sweep's page embeds it: only the drawing, whatever the file holds.
  embedded_svg(text, "p0-");
  // A csv dataset's rows.
  const std::filesystem::path rows = folder / "rows.csv";
  std::ofstream(rows, std::ios::binary | std::ios::trunc) << text;
  allowing_user_errors([&] { read_csv_rows(rows); });
  std::filesystem::remove(rows);
  // The image caches a csv or image_folder dataset keeps.
  check_cache_files(text, folder / "caches");
}

}  // namespace runner::fuzzing
