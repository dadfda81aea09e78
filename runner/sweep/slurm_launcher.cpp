// The points as one Slurm job array: task K runs `runner sweep <the same arguments> --point K`,
// which runs point K in process on its node. The script goes to <sweep>/slurm/job-<id>.sh and
// the job to <sweep>/slurm/job.json; nothing is awaited here (`runner sweep status` follows it).
#include <fmt/format.h>

#include "runner/report/environment.h"
#include "runner/sweep/launcher.h"
#include "runner/sweep/slurm_commands.h"
#include "runner/sweep/slurm_script.h"
#include "runner/util/command_line.h"
#include "runner/util/files.h"

namespace runner {
namespace {

namespace fs = std::filesystem;

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

class SlurmArrayLauncher : public Launcher {
 public:
  SlurmArrayLauncher(SlurmSettings settings, SlurmRecord record, bool dry_run)
      : settings_(std::move(settings)), record_(std::move(record)), dry_run_(dry_run) {}

  void launch(const LaunchRequest& r, Console& console, SweepTally&) override {
    std::vector<int> points;
    for (std::size_t i : r.todo) points.push_back(static_cast<int>(i) + 1);
    // Each task runs this command line again, from the same folder, with --point K: the same
    // plan. --dry-run and --wait are the submitter's, so a dry run shows the script a submission
    // sends.
    std::vector<std::string> command = {fs::read_symlink("/proc/self/exe").string()};
    for (const std::string& arg : r.arguments) {
      if (arg != "--dry-run" && arg != "--wait") command.push_back(arg);
    }
    SlurmJob job{"runner-" + r.spec.name,
                 fs::current_path(),
                 slurm_folder(r.dir),
                 command,
                 points,
                 settings_};
    const std::string script = batch_script(job);
    if (dry_run_) {
      console.result(fmt::format("batch script for {} points (not submitted: --dry-run):\n{}",
                                 points.size(), script));
      return;
    }
    const std::string job_id = submit(r.dir, script, record_, r.plan, points);
    console.result(
        fmt::format("sweep {}: submitted Slurm job {}, {} array tasks (points {}); script {}\n"
                    "  follow it:     {} sweep status {}   (or squeue --jobs={})\n"
                    "  task logs:     {}/{}_<point>.log\n"
                    "  when it ends:  {} report {}",
                    r.spec.name, job_id, points.size(), array_spec(points, 0),
                    (slurm_folder(r.dir) / ("job-" + job_id + ".sh")).string(), runner_program(),
                    r.dir.string(), job_id, slurm_folder(r.dir).string(), job_id, runner_program(),
                    r.dir.string()));
  }

 private:
  SlurmSettings settings_;
  SlurmRecord record_;
  bool dry_run_;
};

}  // namespace

std::unique_ptr<Launcher> slurm_array_launcher(SlurmSettings settings, SlurmRecord record,
                                               bool dry_run) {
  return std::make_unique<SlurmArrayLauncher>(std::move(settings), std::move(record), dry_run);
}

}  // namespace runner
