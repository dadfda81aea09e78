// Submitting a sweep to Slurm as one job array.
#include "runner/cli/slurm_launcher.h"

#include <fmt/format.h>

#include <map>

#include "runner/cli/slurm_commands.h"
#include "runner/cli/slurm_status.h"
#include "runner/cli/sweep_setup.h"
#include "runner/report/environment.h"
#include "runner/sweep/slurm_record.h"
#include "runner/sweep/slurm_script.h"
#include "runner/sweep/slurm_states.h"
#include "runner/sweep/sweep_folder_lock.h"
#include "runner/sweep/sweep_spec.h"
#include "runner/util/files.h"
#include "runner/util/folder_lock.h"

namespace runner {
namespace {

namespace fs = std::filesystem;

SlurmSettings slurm_settings(const SweepOptions& options) {
  SlurmSettings file;
  if (is_sweep_file(options.file)) file = read_launcher_block(options.file).slurm;
  return merged_settings(file, options.launcher.slurm);
}

// The points an earlier array of this sweep still holds (pending or running), with why.
std::map<int, std::string> queued_points(const std::optional<SlurmRecord>& record) {
  std::map<int, std::string> queued;
  if (!record) return queued;
  std::map<std::string, std::map<int, std::string>> states;  // by job, asked once each
  for (const RecordedPoint& point : record->points) {
    const RecordedJob* job = record->job_of(point.index);
    if (!job) continue;
    if (!states.count(job->job_id)) states[job->job_id] = query_task_states(job->job_id);
    auto state = states[job->job_id].find(point.index);
    if (state == states[job->job_id].end()) continue;
    TaskPhase phase = task_phase(state->second);
    if (phase != TaskPhase::ended) {
      queued[point.index] = fmt::format("queued: {} in job {}", state->second, job->job_id);
    }
  }
  return queued;
}

// The plan of a dry run, whose embedded config goes to a temporary file (a dry run writes
// nothing into the sweep folder).
std::vector<PlannedPoint> plan_without_writing(const SweepSpec& spec) {
  if (!spec.base_config.empty()) return plan_sweep(spec, spec.base_config);
  fs::path base = fs::temp_directory_path() / fmt::format("runner-base-{}.yaml", ::getpid());
  write_json_atomically(base, spec.embedded_config);
  struct Remove {
    fs::path file;
    ~Remove() {
      std::error_code ignored;
      fs::remove(file, ignored);
    }
  } remove{base};
  return plan_sweep(spec, base);
}

std::vector<RecordedPoint> recorded_points(const std::vector<PlannedPoint>& plan) {
  std::vector<RecordedPoint> points;
  for (std::size_t i = 0; i < plan.size(); ++i)
    points.push_back({static_cast<int>(i) + 1, plan[i].point.id, plan[i].point_sha});
  return points;
}

// Submits the script (written first as slurm/submit.sh, renamed to job-<id>.sh once Slurm has
// taken it) and records the job; returns its id.
std::string submit(const fs::path& dir, const std::string& script, SlurmRecord record,
                   const std::vector<PlannedPoint>& plan, const std::vector<int>& points) {
  const fs::path folder = slurm_folder(dir);
  const fs::path pending = folder / "submit.sh";
  write_file_atomically(pending, script);
  std::string job_id;
  try {
    job_id = submit_batch_script(pending);
  } catch (...) {
    fs::remove(pending);
    throw;
  }
  const std::string name = "job-" + job_id + ".sh";
  fs::rename(pending, folder / name);
  record.points = recorded_points(plan);
  record.jobs.push_back({job_id, "slurm/" + name, timestamp_now(), points});
  write_slurm_record(dir, record);
  return job_id;
}

// Plans the sweep and submits its array (the folder's locks held only meanwhile); returns the
// sweep folder to follow, or none after a dry run.
std::optional<fs::path> plan_and_submit(const SweepOptions& options, Console& console) {
  SweepSpec spec = sweep_spec(options);
  const SlurmSettings settings = slurm_settings(options);
  const fs::path dir = fs::absolute(spec.output / spec.name);
  std::optional<SweepFolderLock> sweep_lock;  // shared with the tasks of an earlier array
  std::optional<FolderLock> submit_lock;      // one submission at a time
  if (!options.dry_run) {
    sweep_lock.emplace(dir);
    submit_lock.emplace(slurm_folder(dir), "Slurm submission of this sweep");
  }
  std::vector<PlannedPoint> plan =
      options.dry_run ? plan_without_writing(spec) : plan_sweep(spec, sweep_base_config(spec, dir));
  std::vector<PointState> states = point_states(plan, dir);
  std::optional<SlurmRecord> record = read_slurm_record(dir);
  std::map<int, std::string> queued = queued_points(record);

  std::vector<int> points;
  std::vector<std::string> notes;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const int index = static_cast<int>(i) + 1;
    bool done = is_done(states[i]) && !options.force;
    if (!done && !queued.count(index)) points.push_back(index);
    notes.push_back(
        queued.count(index)
            ? queued[index]
            : describe_state(states[i], dir / plan[i].point.id / "report.json", options.force));
  }
  console.line(fmt::format(
      "sweep {}: {} points of {}, mode {}; results in {}; launcher slurm", spec.name, plan.size(),
      spec.base_config.empty() ? "an embedded config" : spec.base_config.string(), mode_line(spec),
      dir.string()));
  if (spec.random) console.line(trials_table(*spec.random));
  console.line(plan_table(plan, notes));
  if (points.empty()) {
    console.result(fmt::format(
        "sweep {}: nothing to submit: every point is completed or queued (runner sweep status "
        "{})",
        spec.name, dir.string()));
    return options.dry_run ? std::nullopt : std::optional(dir);
  }

  // Each task runs this command line again, from the same folder, with --point K: the same plan
  // (the --launcher options do not apply to a --point run).
  // --dry-run and --wait are the submitter's, so a dry run shows the script a submission sends.
  std::vector<std::string> command = {fs::read_symlink("/proc/self/exe").string()};
  for (const std::string& arg : options.arguments) {
    if (arg != "--dry-run" && arg != "--wait") command.push_back(arg);
  }
  SlurmJob job{
      "runner-" + spec.name, fs::current_path(), slurm_folder(dir), command, points, settings};
  const std::string script = batch_script(job);
  if (options.dry_run) {
    console.result(fmt::format("batch script for {} points (not submitted: --dry-run):\n{}",
                               points.size(), script));
    return std::nullopt;
  }
  write_file_atomically(dir / kSweepManifest, plan_json_text(spec, plan));
  std::string job_id = submit(dir, script, record.value_or(SlurmRecord{}), plan, points);
  console.result(
      fmt::format("sweep {}: submitted Slurm job {}, {} array tasks (points {}); script {}\n"
                  "  follow it:     runner sweep status {}   (or squeue --jobs={})\n"
                  "  task logs:     {}/{}_<point>.log\n"
                  "  when it ends:  runner report {}",
                  spec.name, job_id, points.size(), array_spec(points, 0),
                  (slurm_folder(dir) / ("job-" + job_id + ".sh")).string(), dir.string(), job_id,
                  slurm_folder(dir).string(), job_id, dir.string()));
  return dir;
}

}  // namespace

bool launches_on_slurm(const SweepOptions& options) {
  if (options.point > 0 || options.launcher.type == "local") return false;
  if (options.launcher.type == "slurm") return true;
  return is_sweep_file(options.file) &&
         read_launcher_block(options.file).type == LauncherType::slurm;
}

int slurm_sweep_command(const SweepOptions& options) {
  Console console(options.quiet);
  std::optional<fs::path> dir = plan_and_submit(options, console);
  return dir && options.launcher.wait ? wait_for_sweep(*dir, console) : 0;
}

}  // namespace runner
