// Reading a report.json back (reproduce, summaries): a file that is not a report of this
// runner is a UserError naming the file and the field, never a raw JSON library message.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "runner/report/run_record.h"
#include "runner/train/run_status.h"

namespace runner {

// Reports are small; anything larger is not one of ours.
inline constexpr std::size_t kMaxReportBytes = 64u << 20;

// A report and the file it was read from.
struct LoadedReport {
  std::filesystem::path path;
  RunRecord record;
};

// Reads and parses `path` and checks it against schemas/report.schema.json.
nlohmann::json read_report_file(const std::filesystem::path& path);

// read_report_file's report as a record.
RunRecord read_run_record(const std::filesystem::path& path);

// A report read leniently, as a sweep reads its points' (a killed run may have left one short, a
// user may have edited it): nullopt when the file cannot be read or holds no JSON object.
std::optional<RunRecord> read_record_leniently(const std::filesystem::path& path);

// The string at a JSON pointer ("/sweep_point/point_sha256") of a report read leniently, or ""
// when it is missing or not a string.
std::string text_at(const nlohmann::json& report, const char* pointer);

// A report's (or a summary row's) `status`, read leniently: none when it has none, unreadable
// when it is not one this runner writes.
ReportedStatus reported_status(const nlohmann::json& report);

// A report's (or a summary row's, or a sweep plan's) `mode`; nullopt when absent or unknown.
std::optional<RunMode> reported_mode(const nlohmann::json& report);

// What makes a record unusable for a summary, as "field: found X, expected Y": a status this
// runner does not write, or an epoch whose number is not a whole number from 1 (the summaries
// key epochs on it). "" when there is nothing.
std::string record_problem(const RunRecord& record);

}  // namespace runner
