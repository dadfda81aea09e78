// `runner sweep --launcher slurm`: planning here, then the Slurm launcher submits the array.
#include "runner/cli/slurm_sweep.h"

#include <fmt/format.h>

#include <map>

#include "runner/cli/slurm_status.h"
#include "runner/cli/sweep_setup.h"
#include "runner/sweep/asha_trial.h"
#include "runner/sweep/launcher.h"
#include "runner/sweep/slurm_commands.h"
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

  std::vector<std::size_t> todo;  // neither done nor in an array still queued or running
  std::vector<std::string> notes;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const int index = static_cast<int>(i) + 1;
    bool done = is_done(states[i]) && !options.force;
    if (!done && !queued.count(index)) todo.push_back(i);
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
  if (spec.asha) console.line(asha_plan_line(*spec.asha, plan));
  console.line(plan_table(plan, notes));
  if (todo.empty()) {
    console.result(fmt::format(
        "sweep {}: nothing to submit: every point is completed or queued (runner sweep status "
        "{})",
        spec.name, dir.string()));
    return options.dry_run ? std::nullopt : std::optional(dir);
  }

  LaunchRequest request{spec, plan, todo, dir, {}, false, {}, options.arguments, 1, {}, nullptr};
  if (!options.dry_run) write_file_atomically(dir / kSweepManifest, plan_json_text(spec, plan));
  SweepTally nothing_runs_here;
  slurm_array_launcher(settings, record.value_or(SlurmRecord{}), options.dry_run)
      ->launch(request, console, nothing_runs_here);
  if (options.dry_run) return std::nullopt;
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
