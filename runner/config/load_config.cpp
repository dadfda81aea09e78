// read_config and load_experiment: the file and its includes, the overrides, the references,
// then the two later steps.
#include "runner/config/load_config.h"

#include <fmt/format.h>

#include "runner/config/compose.h"
#include "runner/config/interpolate.h"
#include "runner/config/overrides.h"
#include "runner/util/errors.h"

namespace runner {
namespace {

// Running out of memory here is the config's doing, not training's (whose message names the
// batch size): say so, naming the file.
[[noreturn]] void throw_config_out_of_memory(const std::string& file) {
  throw UserError(fmt::format(
      "{}: out of host memory while reading the config (its includes, --set values and ${{...}} "
      "references), before any data or training: the config expands to too much",
      file));
}

}  // namespace

ConfigDocument compose_document(const std::filesystem::path& file) {
  ConfigDocument doc;
  doc.file = file.string();
  doc.source_map = SourceMap(doc.file);
  try {
    doc.json = compose_config(file, doc.source_map);
  } catch (const std::bad_alloc&) {
    throw_config_out_of_memory(doc.file);
  }
  return doc;
}

ConfigDocument apply_overrides(ConfigDocument doc, const std::vector<std::string>& overrides,
                               const std::vector<std::string>& origins) {
  try {
    for (std::size_t i = 0; i < overrides.size(); ++i) {
      apply_override(doc.json, doc.source_map, overrides[i], i < origins.size() ? origins[i] : "");
    }
    interpolate_config(doc.json, doc.source_map);  // after --set, so references see its values
  } catch (const std::bad_alloc&) {
    throw_config_out_of_memory(doc.file);
  }
  return doc;
}

ConfigDocument read_config(const std::filesystem::path& file,
                           const std::vector<std::string>& overrides) {
  return apply_overrides(compose_document(file), overrides);
}

Experiment load_experiment(const std::filesystem::path& file,
                           const std::vector<std::string>& overrides) {
  ConfigDocument doc = read_config(file, overrides);
  validate_config(doc);
  return resolve_experiment(doc);
}

}  // namespace runner
