// Loading an experiment config: YAML and --set overrides, schema validation, resolution.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runner/config/experiment.h"
#include "runner/config/source_map.h"

namespace runner {

// A config as read: its JSON (overrides applied) and where each field came from.
struct ConfigDocument {
  std::string file;
  nlohmann::json json;
  SourceMap source_map;
};

// Reads the YAML file with the files it includes (compose.h), applies the overrides
// ("training.batch_size=64", "~training.optimizer.momentum") in order, then resolves ${...}
// references (interpolate.h).
ConfigDocument read_config(const std::filesystem::path& file,
                           const std::vector<std::string>& overrides);
// read_config in two steps, for many override sets on one file (a sweep's points): the file
// with its includes, then a copy of that with the overrides applied and references resolved.
// `origins[i]`, when given, names where overrides[i] was written (apply_override's `origin`).
ConfigDocument compose_document(const std::filesystem::path& file);
ConfigDocument apply_overrides(ConfigDocument composed, const std::vector<std::string>& overrides,
                               const std::vector<std::string>& origins = {});

// Checks the document against schemas/experiment.schema.json; throws one UserError naming the
// file, line:column, field, the value found and what was expected.
void validate_config(const ConfigDocument& doc);
// The same for another schema under schemas/ (e.g. "sweep.schema.json"), with the same messages.
void validate_document(const ConfigDocument& doc, const std::string& schema_name);

// Fills defaults and makes the checks the schema cannot express (normalize lengths, duplicate
// layer names, download only for a format that can). Expects a validated document.
Experiment resolve_experiment(const ConfigDocument& doc);

// read_config, validate_config and resolve_experiment in one call.
Experiment load_experiment(const std::filesystem::path& file,
                           const std::vector<std::string>& overrides);

}  // namespace runner
