// Two reports of one config side by side (`runner reproduce`): the metrics a deterministic rerun
// must reproduce exactly (losses, accuracies), and timings and environment facts shown for
// reference.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runner/report/run_record.h"

namespace runner {

struct MetricComparison {
  std::string metric;  // a JSON pointer into the report, e.g. /epochs/0/train_loss
  nlohmann::json original, rerun;
  bool exact = false;  // must be equal for the rerun to reproduce the original
  bool equal() const { return original == rerun; }
};

std::vector<MetricComparison> compare_reports(const RunRecord& original, const RunRecord& rerun);

// One line per metric: name, original, rerun, and "same", "DIFFERS" or (for reference rows) the
// ratio.
std::string comparison_table(const std::vector<MetricComparison>& rows);

// True when every exact metric is equal.
bool reproduces(const std::vector<MetricComparison>& rows);

// One line per data file whose size or SHA-256 differs between the reports' `data` blocks (or
// that only one of them read); empty when both read the same bytes, or a report has no block.
std::vector<std::string> data_differences(const RunRecord& original, const RunRecord& rerun);

}  // namespace runner
