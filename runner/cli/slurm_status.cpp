// Following a sweep's Slurm job arrays: each point's status, polling, and the summary at the end.
#include "runner/cli/slurm_status.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <map>
#include <thread>

#include "runner/cli/local_status.h"
#include "runner/cli/report_folder.h"
#include "runner/report/read_report.h"
#include "runner/report/run_record.h"
#include "runner/sweep/local_progress.h"  // live_progress_text
#include "runner/sweep/rung_records.h"
#include "runner/sweep/slurm_commands.h"
#include "runner/sweep/slurm_progress.h"
#include "runner/sweep/slurm_record.h"
#include "runner/util/errors.h"
#include "runner/util/interrupt.h"

namespace runner {
namespace {

namespace fs = std::filesystem;

struct PointProgress {
  const RecordedPoint* point;
  std::string job_id;
  PointJudgement judgement;
};

PointEvidence report_evidence(const fs::path& dir, const RecordedPoint& point) {
  PointEvidence evidence;
  const fs::path file = dir / point.id / "report.json";
  std::error_code ignored;
  if (!fs::exists(file, ignored)) return evidence;
  const std::optional<RunRecord> found = read_record_leniently(file);
  if (!found) {
    evidence.report = ReportedStatus::unreadable();
    return evidence;
  }
  const RunRecord& record = *found;
  evidence.report =
      record.status ? ReportedStatus::of(*record.status) : ReportedStatus::unreadable();
  evidence.report_error = record.error.value_or("");
  evidence.progress = live_progress_text(record.progress);
  evidence.report_of_plan =
      !point.point_sha.empty() &&
      field_of(record.sweep_point, &RecordSweepPoint::point_sha256) == point.point_sha;
  return evidence;
}

std::vector<PointProgress> sweep_progress(const fs::path& dir, const SlurmRecord& record) {
  std::map<std::string, std::map<int, std::string>> states;  // by job, asked once each
  std::vector<PointProgress> progress;
  for (const RecordedPoint& point : record.points) {
    PointEvidence evidence = report_evidence(dir, point);
    if (const RecordedJob* job = record.job_of(point.index)) {
      evidence.job_id = job->job_id;
      bool complete = evidence.report.ended_as_planned() && evidence.report_of_plan;
      if (!complete) {
        if (!states.count(job->job_id)) states[job->job_id] = query_task_states(job->job_id);
        auto state = states[job->job_id].find(point.index);
        if (state != states[job->job_id].end()) evidence.slurm_state = state->second;
      }
    }
    progress.push_back({&point, evidence.job_id, judge_point(evidence)});
  }
  return progress;
}

std::map<SlurmPointStatus, int> count(const std::vector<PointProgress>& progress) {
  std::map<SlurmPointStatus, int> counts;
  for (const PointProgress& p : progress) ++counts[p.judgement.status];
  return counts;
}

std::string counts_line(const std::vector<PointProgress>& progress) {
  std::vector<std::string> parts;
  for (const auto& [status, n] : count(progress))
    parts.push_back(fmt::format("{} {}", n, status_name(status)));
  return fmt::format("{} points: {}", progress.size(), fmt::join(parts, ", "));
}

std::string progress_table(const fs::path& dir, const std::vector<PointProgress>& progress) {
  std::size_t width = 5;
  for (const PointProgress& p : progress) width = std::max(width, p.point->id.size());
  std::string out = fmt::format("{:>3}  {:<{}}  {:<13}  {:>8}  {}\n", "#", "point", width, "status",
                                "job", "detail");
  for (const PointProgress& p : progress) {
    std::string detail = p.judgement.detail;
    if (p.judgement.status == SlurmPointStatus::failed && !p.job_id.empty()) {
      detail += fmt::format(
          "; log: {}",
          (slurm_folder(dir) / fmt::format("{}_{}.log", p.job_id, p.point->index)).string());
    }
    out += fmt::format("{:>3}  {:<{}}  {:<13}  {:>8}  {}\n", p.point->index, p.point->id, width,
                       status_name(p.judgement.status), p.job_id, detail);
  }
  if (auto records = read_rung_records(dir); !records.empty()) {  // an ASHA search's
    out += "\nasha: " + rung_counts_text(rung_counts(records)) + "\n";
  }
  return out;
}

SlurmRecord record_of(const fs::path& dir) {
  std::optional<SlurmRecord> record = read_slurm_record(dir);
  if (!record) {
    throw UserError(
        fmt::format("{}: no Slurm job recorded here ({} is missing); submit the sweep with "
                    "`runner sweep SWEEP.yaml --launcher slurm`",
                    dir.string(), (slurm_folder(dir) / "job.json").string()));
  }
  return *record;
}

bool active(const std::vector<PointProgress>& progress) {
  return std::any_of(progress.begin(), progress.end(), [](const PointProgress& p) {
    return p.judgement.status == SlurmPointStatus::pending ||
           p.judgement.status == SlurmPointStatus::running;
  });
}

// "15:04:05", local time, for the polling lines.
std::string clock_time() {
  std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  return fmt::format("{:02}:{:02}:{:02}", local.tm_hour, local.tm_min, local.tm_sec);
}

}  // namespace

int wait_for_sweep(const fs::path& dir, Console& console) {
  const SlurmRecord record = record_of(dir);
  std::string last;
  std::vector<PointProgress> progress;
  for (int round = 1;; ++round) {
    progress = sweep_progress(dir, record);
    std::string line = counts_line(progress);
    if (line != last) console.line(fmt::format("[{}] {}", clock_time(), line));
    last = line;
    if (!active(progress)) break;
    sleep_interruptibly(
        std::min(10, 2 * round),
        fmt::format("stopped waiting; the Slurm job goes on (runner sweep status {})",
                    dir.string()));
  }
  console.line(progress_table(dir, progress));
  report_folder(dir, console);
  auto counts = count(progress);
  const int done = counts[SlurmPointStatus::completed] + counts[SlurmPointStatus::stopped_early];
  int not_completed = static_cast<int>(progress.size()) - done;
  console.result(
      fmt::format("sweep {}: {}{}", dir.filename().string(), counts_line(progress),
                  not_completed ? fmt::format("; {} did not complete", not_completed) : ""));
  return done > 0 ? 0 : 1;
}

int sweep_status_command(const SweepStatusOptions& options) {
  Console console(options.quiet);
  const fs::path dir = fs::absolute(options.dir);
  // A sweep run here (no Slurm job recorded) is followed from its folder alone.
  if (!read_slurm_record(dir)) return local_sweep_status(dir, console, options.wait);
  if (options.wait) return wait_for_sweep(dir, console);
  const SlurmRecord record = record_of(dir);
  std::vector<PointProgress> progress = sweep_progress(dir, record);
  console.line(progress_table(dir, progress));
  console.result(fmt::format(
      "sweep {}: {}{}", dir.filename().string(), counts_line(progress),
      active(progress) ? "" : "; nothing pending or running: runner report " + dir.string()));
  return 0;
}

}  // namespace runner
