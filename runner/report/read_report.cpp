// A report read back: a regular file, JSON, and valid against the report schema.
#include "runner/report/read_report.h"

#include <fmt/format.h>

#include "runner/config/load_config.h"
#include "runner/util/bounded_json.h"
#include "runner/util/errors.h"
#include "runner/util/files.h"
#include "runner/util/long_text.h"

namespace runner {

nlohmann::json read_report_file(const std::filesystem::path& path) {
  std::string text = read_regular_file(path, kMaxReportBytes, "a JSON report");
  ConfigDocument doc;
  doc.file = path.string();
  doc.source_map = SourceMap(doc.file);
  try {
    doc.json = parse_bounded_json(text);
  } catch (const nlohmann::json::exception& error) {
    // A syntax error, or a number beyond a double's range (out_of_range.406, report_fuzzer).
    std::string what = error.what();  // "[json.exception.parse_error.101] parse error at ..."
    auto bracket = what.find("] ");
    throw UserError(fmt::format("{}: not a JSON report: {}", doc.file,
                                bracket == std::string::npos ? what : what.substr(bracket + 2)));
  } catch (const JsonTooDeep& error) {
    throw UserError(fmt::format("{}: not a JSON report: {}", doc.file, error.what()));
  }
  if (!doc.json.is_object()) {
    throw UserError(fmt::format("{}: not a JSON report (expected an object)", doc.file));
  }
  validate_document(doc, "report.schema.json");
  return std::move(doc.json);
}

RunRecord read_run_record(const std::filesystem::path& path) {
  return run_record_from_json(read_report_file(path));
}

std::optional<RunRecord> read_record_leniently(const std::filesystem::path& path) {
  const nlohmann::json report = read_json_leniently(path);
  if (!report.is_object()) return std::nullopt;
  return run_record_from_json(report);
}

std::string text_at(const nlohmann::json& report, const char* pointer) {
  const nlohmann::json::json_pointer at(pointer);
  return report.contains(at) && report.at(at).is_string() ? report.at(at).get<std::string>() : "";
}

namespace {

std::optional<RunStatus> status_of(const nlohmann::json& report) {
  if (!report.is_object()) return std::nullopt;
  auto found = report.find("status");
  if (found == report.end() || !found->is_string()) return std::nullopt;
  return parse_run_status(found->get<std::string>());
}

}  // namespace

ReportedStatus reported_status(const nlohmann::json& report) {
  if (!report.is_object() || !report.contains("status")) return {};
  auto status = status_of(report);
  return status ? ReportedStatus::of(*status) : ReportedStatus::unreadable();
}

std::optional<RunMode> reported_mode(const nlohmann::json& report) {
  if (!report.is_object()) return std::nullopt;
  auto found = report.find("mode");
  if (found == report.end() || !found->is_string()) return std::nullopt;
  return parse_run_mode(found->get<std::string>());
}

std::string record_problem(const RunRecord& record) {
  if (record.reported_status().kind == ReportedStatus::Kind::unreadable) {
    return fmt::format("status: found {}, expected one of: {}", record.unmodelled["status"].dump(),
                       known_status_names());
  }
  const nlohmann::json& raw_epochs =
      record.unmodelled.is_object() ? record.unmodelled.value("epochs", nlohmann::json()) : nullptr;
  if (raw_epochs.is_array()) {  // a list holding something other than epochs
    return fmt::format("epochs: found {}, expected a list of epochs",
                       shortened(raw_epochs.dump(), 80));
  }
  for (const RecordEpoch& epoch : record.epochs.value_or(std::vector<RecordEpoch>{})) {
    if (epoch.epoch && *epoch.epoch >= 1) continue;
    const nlohmann::json number =
        epoch.epoch
            ? nlohmann::json(*epoch.epoch)
            : (epoch.unmodelled.is_object() ? epoch.unmodelled.value("epoch", nlohmann::json())
                                            : nlohmann::json());
    return fmt::format("epochs: epoch {}, expected a whole number from 1", number.dump());
  }
  return "";
}

}  // namespace runner
