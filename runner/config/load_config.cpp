// read_config and load_experiment: the file, its YAML, the overrides, then the two later steps.
#include "runner/config/load_config.h"

#include <fmt/format.h>

#include "runner/config/config_limits.h"
#include "runner/config/overrides.h"
#include "runner/config/yaml_to_json.h"
#include "runner/util/errors.h"
#include "runner/util/files.h"

namespace runner {

ConfigDocument read_config(const std::filesystem::path& file,
                           const std::vector<std::string>& overrides) {
  ConfigDocument doc;
  doc.file = file.string();
  std::string text = read_regular_file(file, limits::max_config_bytes, "a YAML config file");
  doc.source_map = SourceMap(doc.file);
  doc.json = yaml_to_json(text, doc.file, doc.source_map);
  for (const auto& override_text : overrides) {
    apply_override(doc.json, doc.source_map, override_text);
  }
  return doc;
}

Experiment load_experiment(const std::filesystem::path& file,
                           const std::vector<std::string>& overrides) {
  ConfigDocument doc = read_config(file, overrides);
  validate_config(doc);
  return resolve_experiment(doc);
}

}  // namespace runner
