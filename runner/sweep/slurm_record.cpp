// Reading and writing <sweep>/slurm/job.json.
#include "runner/sweep/slurm_record.h"

#include <fmt/format.h>

#include "runner/util/bounded_json.h"
#include "runner/util/errors.h"
#include "runner/util/files.h"

namespace runner {
namespace {

constexpr std::size_t kMaxRecordBytes = 64 << 20;

nlohmann::json to_json(const SlurmRecord& record) {
  nlohmann::json points = nlohmann::json::array(), jobs = nlohmann::json::array();
  for (const RecordedPoint& p : record.points)
    points.push_back({{"index", p.index}, {"id", p.id}, {"point_sha256", p.point_sha}});
  for (const RecordedJob& j : record.jobs) {
    jobs.push_back({{"job_id", j.job_id},
                    {"script", j.script},
                    {"submitted", j.submitted},
                    {"points", j.points}});
  }
  return {{"points", points}, {"jobs", jobs}};
}

SlurmRecord from_json(const nlohmann::json& j) {
  SlurmRecord record;
  for (const auto& p : j.at("points"))
    record.points.push_back({p.at("index"), p.at("id"), p.at("point_sha256")});
  for (const auto& job : j.at("jobs")) {
    record.jobs.push_back({job.at("job_id"), job.at("script"), job.at("submitted"),
                           job.at("points").get<std::vector<int>>()});
  }
  return record;
}

}  // namespace

const RecordedJob* SlurmRecord::job_of(int index) const {
  for (auto job = jobs.rbegin(); job != jobs.rend(); ++job) {
    for (int p : job->points) {
      if (p == index) return &*job;
    }
  }
  return nullptr;
}

std::filesystem::path slurm_folder(const std::filesystem::path& sweep_dir) {
  return sweep_dir / "slurm";
}

std::optional<SlurmRecord> read_slurm_record(const std::filesystem::path& sweep_dir) {
  std::filesystem::path file = slurm_folder(sweep_dir) / "job.json";
  if (!std::filesystem::exists(file)) return std::nullopt;
  std::string text = read_regular_file(file, kMaxRecordBytes, "a sweep's Slurm record (JSON)");
  try {
    return from_json(parse_bounded_json(text));
  } catch (const std::exception& e) {  // nlohmann's, or JsonTooDeep
    throw UserError(fmt::format(
        "{}: not a record of `runner sweep --launcher slurm` ({}); remove it to submit afresh",
        file.string(), e.what()));
  }
}

void write_slurm_record(const std::filesystem::path& sweep_dir, const SlurmRecord& record) {
  write_json_atomically(slurm_folder(sweep_dir) / "job.json", to_json(record));
}

}  // namespace runner
