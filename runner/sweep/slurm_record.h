// What a sweep folder records of its Slurm submissions (<sweep>/slurm/job.json): the plan's
// points as submitted (to tell a complete report from one of another plan) and every job array
// with the points its tasks run, newest last.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace runner {

struct RecordedPoint {
  int index = 0;          // 1-based, the plan's # and the array task number
  std::string id;         // the point's folder
  std::string point_sha;  // the plan's sweep_point.point_sha256 ("" for an invalid point)
};

struct RecordedJob {
  std::string job_id;
  std::string script;       // the batch script, relative to the sweep folder
  std::string submitted;    // UTC, ISO 8601
  std::vector<int> points;  // its array tasks
};

struct SlurmRecord {
  std::vector<RecordedPoint> points;  // the whole plan at the last submission
  std::vector<RecordedJob> jobs;      // oldest first
  // The newest job whose array holds point `index`, or none.
  const RecordedJob* job_of(int index) const;
};

// <sweep>/slurm: the record, the scripts (job-<id>.sh) and the tasks' logs (<id>_<task>.log).
std::filesystem::path slurm_folder(const std::filesystem::path& sweep_dir);

// The record of `sweep_dir`, or none when nothing was submitted from it. A record that is not
// of this form is a UserError naming the file.
std::optional<SlurmRecord> read_slurm_record(const std::filesystem::path& sweep_dir);

// Writes the record atomically.
void write_slurm_record(const std::filesystem::path& sweep_dir, const SlurmRecord& record);

}  // namespace runner
