// A report read back: a regular file, JSON, and valid against the report schema.
#include "runner/report/read_report.h"

#include <fmt/format.h>

#include "runner/config/load_config.h"
#include "runner/util/errors.h"
#include "runner/util/files.h"

namespace runner {

nlohmann::json read_report_file(const std::filesystem::path& path) {
  std::string text = read_regular_file(path, kMaxReportBytes, "a JSON report");
  ConfigDocument doc;
  doc.file = path.string();
  doc.source_map = SourceMap(doc.file);
  try {
    doc.json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    std::string what = error.what();  // "[json.exception.parse_error.101] parse error at ..."
    auto bracket = what.find("] ");
    throw UserError(fmt::format("{}: not a JSON report: {}", doc.file,
                                bracket == std::string::npos ? what : what.substr(bracket + 2)));
  }
  if (!doc.json.is_object()) {
    throw UserError(fmt::format("{}: not a JSON report (expected an object)", doc.file));
  }
  validate_document(doc, "report.schema.json");
  return std::move(doc.json);
}

RunStatus report_status(const nlohmann::json& report, const std::string& file) {
  const nlohmann::json* found = report.contains("status") ? &report["status"] : nullptr;
  if (found && found->is_string()) {
    if (auto status = parse_run_status(found->get<std::string>())) return *status;
  }
  throw UserError(fmt::format("{}: status: found {}, expected one of: {}", file,
                              found ? found->dump() : "nothing", known_status_names()));
}

}  // namespace runner
