#include "runner/cli/local_status.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <map>
#include <thread>

#include "runner/cli/report_folder.h"
#include "runner/report/read_report.h"
#include "runner/report/run_record.h"
#include "runner/sweep/local_progress.h"
#include "runner/sweep/rung_records.h"
#include "runner/sweep/sweep_plan.h"
#include "runner/util/bounded_json.h"
#include "runner/util/errors.h"
#include "runner/util/folder_lock.h"
#include "runner/util/interrupt.h"

namespace runner {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct PointRow {
  int index = 0;
  std::string id;
  LocalJudgement judgement;
  std::optional<double> seconds;  // a completed point's run time
};

// Seconds since the epoch of "2026-11-26T05:11:33+0000" (the reports' timestamps), or none.
std::optional<double> epoch_seconds(const std::string& text) {
  std::tm time{};
  const char* end = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S%z", &time);
  if (!end || *end != '\0') return std::nullopt;
  return static_cast<double>(timegm(&time) - time.tm_gmtoff);
}

std::vector<PointRow> point_rows(const fs::path& dir, const json& manifest, bool running) {
  std::vector<PointRow> rows;
  for (const json& point : manifest["points"]) {
    PointRow row;
    row.id = text_at(point, "/id");
    if (row.id.empty()) continue;  // not a point this runner wrote
    const json index = point.value("index", json());
    row.index =
        index.is_number_integer() ? index.get<int>() + 1 : static_cast<int>(rows.size()) + 1;
    LocalPointEvidence evidence;
    evidence.sweep_running = running;
    std::error_code ignored;
    evidence.folder_exists = fs::is_directory(dir / row.id, ignored);
    if (const std::optional<RunRecord> found =
            read_record_leniently(dir / row.id / "report.json")) {
      const RunRecord& report = *found;
      evidence.report =
          report.status ? ReportedStatus::of(*report.status) : ReportedStatus::unreadable();
      evidence.report_error = report.error.value_or("");
      evidence.progress = live_progress_text(report.progress);
      const std::string planned = text_at(point, "/point_sha256");
      evidence.report_of_plan =
          planned.empty() ||
          field_of(report.sweep_point, &RecordSweepPoint::point_sha256) == planned;
      auto started = epoch_seconds(report.started_at.value_or(""));
      auto finished = epoch_seconds(report.finished_at.value_or(""));
      if (started && finished) row.seconds = *finished - *started;
    } else if (fs::exists(dir / row.id / "report.json", ignored)) {
      evidence.report = ReportedStatus::unreadable();
    }
    row.judgement = judge_local_point(evidence);
    if (row.judgement.status != LocalPointStatus::completed) row.seconds.reset();
    rows.push_back(std::move(row));
  }
  return rows;
}

std::map<LocalPointStatus, int> counts_of(const std::vector<PointRow>& rows) {
  std::map<LocalPointStatus, int> counts;
  for (const PointRow& row : rows) ++counts[row.judgement.status];
  return counts;
}

std::string counts_line(const std::vector<PointRow>& rows, bool running) {
  std::vector<std::string> parts;
  auto counts = counts_of(rows);
  for (const auto& [status, n] : counts)
    parts.push_back(fmt::format("{} {}", n, status_name(status)));
  std::string line = fmt::format("{} points: {}", rows.size(), fmt::join(parts, ", "));
  if (!running) return line + "; no sweep runs into this folder now";
  std::vector<double> seconds;
  for (const PointRow& row : rows) {
    if (row.seconds) seconds.push_back(*row.seconds);
  }
  const int running_now = counts[LocalPointStatus::running];
  const int left = running_now + counts[LocalPointStatus::waiting];
  if (left == 0) return line + "; the sweep is finishing (its summary)";
  if (auto rest = time_left(seconds, left, running_now)) {
    line += fmt::format("; about {} left", duration_text(*rest));
  }
  return line;
}

std::string table(const std::vector<PointRow>& rows) {
  std::size_t width = 5, status_width = 9;  // the longest status, completed
  for (const PointRow& row : rows) {
    width = std::max(width, row.id.size());
    status_width = std::max(status_width, std::string(status_name(row.judgement.status)).size());
  }
  std::string out = fmt::format("{:>3}  {:<{}}  {:<{}}  {}\n", "#", "point", width, "status",
                                status_width, "detail");
  for (const PointRow& row : rows) {
    std::string line =
        fmt::format("{:>3}  {:<{}}  {:<{}}  {}", row.index, row.id, width,
                    status_name(row.judgement.status), status_width, row.judgement.detail);
    while (line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace

int local_sweep_status(const fs::path& dir, Console& console, bool wait) {
  const json manifest = read_json_leniently(dir / kSweepManifest);
  if (!manifest.is_object() || !manifest.value("points", json()).is_array()) {
    throw UserError(fmt::format(
        "{}: no sweep here ({} is missing or unreadable); expected a folder a sweep wrote "
        "(results/sweeps/NAME)",
        dir.string(), (dir / kSweepManifest).string()));
  }
  bool running = folder_lock_held(dir);
  std::vector<PointRow> rows = point_rows(dir, manifest, running);
  if (wait) {
    std::string last;
    for (int round = 1; running; ++round) {
      std::string line = counts_line(rows, running);
      if (line != last) console.line(line);
      last = line;
      sleep_interruptibly(
          std::min(10, 2 * round),
          fmt::format("stopped waiting; the sweep goes on (runner sweep status {})", dir.string()));
      running = folder_lock_held(dir);
      rows = point_rows(dir, manifest, running);
    }
  }
  console.line(table(rows));
  if (manifest.contains("asha")) {
    console.line("asha: " + rung_counts_text(rung_counts(read_rung_records(dir))));
  }
  if (wait) report_folder(dir, console);
  auto counts = counts_of(rows);
  const int completed =
      counts[LocalPointStatus::completed] + counts[LocalPointStatus::stopped_early];
  console.result(
      fmt::format("sweep {}: {}{}", dir.filename().string(), counts_line(rows, running),
                  running || wait ? "" : "; runner report " + dir.string() + " summarises it"));
  return completed > 0 || running ? 0 : 1;
}

}  // namespace runner
