// Pieces of the JSON report (schemas/report.schema.json) and where runs are written.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/graph/graph.h"
#include "runner/train/trainer.h"

namespace runner {

nlohmann::json model_json(const Graph& graph);
nlohmann::json epochs_json(const std::vector<EpochRecord>& epochs);
nlohmann::json metrics_json(const Evaluation& evaluation, const std::vector<std::string>& class_names);
nlohmann::json throughput_json(const TrainingOutcome& outcome, std::int64_t flops_per_image);

// The process's peak resident memory so far.
std::int64_t peak_rss_bytes();

// A new folder <root>/<name>/<run id>; the id is the start time plus a short config hash.
std::filesystem::path new_run_directory(const std::filesystem::path& root, const std::string& name,
                                        const std::string& config_sha256);

// Writes <dir>/report.json atomically; returns its path.
std::filesystem::path write_report(const std::filesystem::path& dir, const nlohmann::json& report);

}  // namespace runner
