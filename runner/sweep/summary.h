// A sweep's summary (schemas/summary.schema.json): one row per point from its report (device,
// batch size, width, status, images per second, step time and spread, CPU use, memory, FLOP/s,
// accuracy and loss) and each GPU point's speedup over the CPU point it matches.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "runner/report/run_record.h"

namespace runner {

// The row of one report (a missing figure is null); `report_path` is recorded as given. A
// status this runner does not know, or an epoch that is not a whole number from 1, is a
// UserError naming `report_path`.
nlohmann::json summary_row(const RunRecord& report, const std::string& report_path);

// Sets speedup_over_cpu of every completed GPU row that has a completed CPU row with the same
// values but the device (batch size, width, ...): GPU images/s over CPU images/s; else null.
void add_speedups(nlohmann::json& rows);

// The summary of a folder: the points of its sweep.json in order (a point without a report is
// "missing"), or without one every report.json below it. A report that is not valid against
// its schema is left out and listed in "unreadable_reports" (file and reason). No reports at
// all is a UserError.
nlohmann::json summarize_folder(const std::filesystem::path& dir);

}  // namespace runner
