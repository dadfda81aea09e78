// `runner compare A B ... --html FILE`: the comparison's groups, config and environment
// differences and metric deltas as tables, and the groups' curves drawn over one another.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runner/report/read_report.h"

namespace runner {

// `comparison` as compare_runs() makes it; `reports` are the reports it compared. Links to the
// runs' pages are relative to `page_file`, where the page will be written.
std::string compare_page(const nlohmann::json& comparison, const std::vector<LoadedReport>& reports,
                         const std::filesystem::path& page_file);

}  // namespace runner
