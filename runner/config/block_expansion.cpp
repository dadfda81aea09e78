// Block expansion: each use of a block becomes its instances' layers, depth first, in order.
#include "runner/config/block_expansion.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "runner/config/field_path.h"
#include "runner/config/interpolate.h"
#include "runner/util/errors.h"

namespace runner {
namespace {

// What `inputs` names for the images at the top level, and for the block's input inside one.
constexpr const char* kInputName = "input";
constexpr const char* kLayersPath = "model.layers";
constexpr std::size_t kMaxLayers = 4096;  // the schema's bound on model.layers
constexpr std::size_t kMaxNesting = 16;   // blocks using blocks
constexpr std::int64_t kMaxRepeat = 1024;
// Entries visited, left-out ones included: repeats of repeats of left-out entries add no layer
// but would take 1024^16 steps.
constexpr std::size_t kMaxEntries = 65536;

// The entries being expanded: the top level, or one instance of a block.
struct Scope {
  std::string prefix;                          // "stage2.0." ("" at the top level)
  const nlohmann::json* params = nullptr;      // the instance's parameters (none at the top level)
  std::string input;                           // what `input` names: a layer, or the images
  std::string used_by;                         // "model.layers[4]" (and " via ..." when nested)
  std::string top_entry;                       // the top-level entry this instance expands
  std::map<std::string, std::string> outputs;  // an entry's name -> the layer that is its output
  bool top_level() const { return params == nullptr; }
};

std::string quoted_list(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "'" : ", '") + name + "'";
  return text;
}

std::vector<std::string> keys_of(const nlohmann::json& object) {
  std::vector<std::string> keys;
  if (object.is_object()) {
    for (const auto& [key, value] : object.items()) keys.push_back(key);
  }
  return keys;
}

std::vector<std::string> keys_of(const std::map<std::string, std::string>& map) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : map) keys.push_back(key);
  return keys;
}

class Expander {
 public:
  explicit Expander(const ConfigDocument& written)
      : written_(written),
        config_(written.json),
        blocks_(written.json["model"].value("blocks", nlohmann::json::object())) {}

  ConfigDocument run() {
    ConfigDocument out{written_.file, written_.json, written_.source_map};
    out.source_map.erase_subtree(kLayersPath);
    out.source_map.erase_subtree(kBlocksPath);
    map_ = &out.source_map;
    Scope top;
    top.input = kInputName;
    expand_entries(written_.json["model"]["layers"], kLayersPath, top);
    rename_top_level_inputs(top);
    out.json["model"].erase("blocks");
    out.json["model"]["layers"] = std::move(layers_);
    return out;
  }

 private:
  const ConfigDocument& written_;
  mutable nlohmann::json config_;  // for ${field} references inside blocks (resolved in place)
  nlohmann::json blocks_;
  SourceMap* map_ = nullptr;
  nlohmann::json layers_ = nlohmann::json::array();
  std::vector<std::size_t> top_level_layers_;  // indices into layers_ written at the top level
  std::vector<std::string> active_;            // the blocks being expanded, outermost first
  const Scope* current_ = nullptr;             // the scope whose entries are being expanded
  std::size_t entries_seen_ = 0;

  // Inside a block the message names the instance too: a block's line serves all its uses.
  std::string instance_note() const {
    if (!current_ || current_->top_level()) return "";
    std::string instance = current_->prefix.substr(0, current_->prefix.size() - 1);
    return fmt::format(" (in {}, from {})", instance, current_->used_by);
  }

  [[noreturn]] void fail(const std::string& path, const std::string& problem,
                         const std::string& hint = "") const {
    SourceLocation where = written_.source_map.locate(path);
    where.path += instance_note();
    throw_user_error(where, problem, hint);
  }

  void resolve_references(nlohmann::json& entry, const std::string& path, const Scope& scope) {
    try {
      interpolate_block_field(entry, path, *scope.params, config_, written_.source_map);
    } catch (const UserError& error) {
      throw UserError(error.what() + instance_note());
    }
  }

  // Expands entries[0..] (written at `list_path`); returns the layer that is their output.
  std::string expand_entries(const nlohmann::json& entries, const std::string& list_path,
                             Scope& scope) {
    std::string previous = scope.input;
    for (std::size_t j = 0; j < entries.size(); ++j) {
      current_ = &scope;
      const std::string path = item_path(list_path, j);
      if (++entries_seen_ > kMaxEntries) {
        fail(scope.top_level() ? path : scope.top_entry,
             fmt::format("the blocks expand to more than {} entries", kMaxEntries),
             "fewer repeats or smaller blocks");
      }
      nlohmann::json entry = entries[j];
      if (!scope.top_level()) resolve_references(entry, path, scope);
      const std::string name = entry.at("name").get<std::string>();
      check_new_name(scope, name, path);
      std::vector<std::string> inputs = entry_inputs(entry, path, scope);
      const std::string first_input = inputs.empty() ? previous : inputs.front();
      std::string output;
      if (!enabled(entry, path)) {
        output = first_input;
      } else if (entry.contains("block")) {
        output = expand_use(entry, path, scope, first_input);
      } else {
        output = add_layer(std::move(entry), path, scope, inputs, previous);
      }
      scope.outputs[name] = output;
      previous = output;
    }
    return previous;
  }

  void check_new_name(const Scope& scope, const std::string& name, const std::string& path) const {
    if (!scope.top_level() && name == kInputName) {
      fail(child_path(path, "name"), "a layer of a block may not be named 'input'",
           "'input' names the block's input");
    }
    if (scope.outputs.contains(name)) {
      fail(child_path(path, "name"), fmt::format("duplicate name '{}'", name),
           scope.top_level() ? "names must be unique" : "names must be unique within a block");
    }
  }

  // The entry's `inputs` as layers: inside a block each names an earlier entry or `input`; at
  // the top level a name stays as written unless it is an earlier entry's (a block use's) output.
  std::vector<std::string> entry_inputs(const nlohmann::json& entry, const std::string& path,
                                        const Scope& scope) const {
    std::vector<std::string> inputs;
    if (!entry.contains("inputs")) return inputs;
    const nlohmann::json& written = entry["inputs"];
    if (!written.is_array()) fail(child_path(path, "inputs"), "expected a list of layer names");
    for (std::size_t k = 0; k < written.size(); ++k) {
      if (!written[k].is_string()) {
        fail(item_path(child_path(path, "inputs"), k), "expected a layer name");
      }
      const std::string name = written[k].get<std::string>();
      if (name == kInputName) {
        inputs.push_back(scope.input);
      } else if (auto it = scope.outputs.find(name); it != scope.outputs.end()) {
        inputs.push_back(it->second);
      } else if (scope.top_level()) {
        inputs.push_back(name);  // a later layer, or none: the graph builder says which
      } else {
        std::vector<std::string> known = keys_of(scope.outputs);
        known.push_back(kInputName);
        std::string suggestion = nearest_match(name, known);
        fail(item_path(child_path(path, "inputs"), k),
             fmt::format("no earlier layer of this block is named '{}'", name),
             suggestion.empty() ? fmt::format("known here: {}", quoted_list(known))
                                : fmt::format("did you mean '{}'?", suggestion));
      }
    }
    return inputs;
  }

  bool enabled(const nlohmann::json& entry, const std::string& path) const {
    if (!entry.contains("enabled")) return true;
    if (!entry["enabled"].is_boolean()) {
      fail(child_path(path, "enabled"),
           fmt::format("found {}, expected true or false", entry["enabled"].dump()));
    }
    return entry["enabled"].get<bool>();
  }

  std::string add_layer(nlohmann::json layer, const std::string& path, const Scope& scope,
                        const std::vector<std::string>& inputs, const std::string& previous) {
    if (layers_.size() >= kMaxLayers) {
      fail(scope.top_level() ? path : scope.top_entry,
           fmt::format("the model expands to more than {} layers", kMaxLayers),
           "fewer repeats or smaller blocks");
    }
    const std::string name = scope.prefix + layer["name"].get<std::string>();
    layer["name"] = name;
    layer.erase("enabled");
    // The graph builder's default input is the previous layer of the flat list.
    const std::string flat_previous =
        layers_.empty() ? std::string(kInputName) : layers_.back()["name"].get<std::string>();
    if (!inputs.empty()) {
      layer["inputs"] = inputs;
    } else if (previous != flat_previous) {
      layer["inputs"] = {previous};
    }
    const std::string expanded_path = item_path(kLayersPath, layers_.size());
    map_->copy_subtree_to(written_.source_map, path, expanded_path);
    if (scope.top_level()) {
      top_level_layers_.push_back(layers_.size());
      if (path != expanded_path) map_->show_as(expanded_path, path, "");
    } else {
      map_->show_as(expanded_path, path, fmt::format("layer {}, from {}", name, scope.used_by));
    }
    layers_.push_back(std::move(layer));
    return name;
  }

  // A top-level layer may name a later block use (or a left-out entry): its output.
  void rename_top_level_inputs(const Scope& top) {
    for (std::size_t index : top_level_layers_) {
      nlohmann::json& layer = layers_[index];
      if (!layer.contains("inputs")) continue;
      for (auto& input : layer["inputs"]) {
        auto it = top.outputs.find(input.get<std::string>());
        if (it != top.outputs.end()) input = it->second;
      }
    }
  }

  const nlohmann::json& find_block(const nlohmann::json& entry, const std::string& path) const {
    const std::string block = entry.at("block").get<std::string>();
    if (blocks_.contains(block)) return blocks_[block];
    std::vector<std::string> known = keys_of(blocks_);
    if (known.empty())
      fail(child_path(path, "block"), fmt::format("no block named '{}'", block),
           "define it under model.blocks");
    std::string suggestion = nearest_match(block, known);
    fail(child_path(path, "block"), fmt::format("no block named '{}'", block),
         suggestion.empty() ? fmt::format("model.blocks defines {}", quoted_list(known))
                            : fmt::format("did you mean '{}'?", suggestion));
  }

  // Repeat count: 0 for a single use (instances unnumbered), else 1..kMaxRepeat.
  std::int64_t repeat_of(const nlohmann::json& entry, const std::string& path) const {
    if (!entry.contains("repeat")) return 0;
    const nlohmann::json& repeat = entry["repeat"];
    if (!repeat.is_number_integer() || repeat.get<std::int64_t>() < 1 ||
        repeat.get<std::int64_t>() > kMaxRepeat) {
      fail(child_path(path, "repeat"),
           fmt::format("found {}, expected an integer from 1 to {}", repeat.dump(), kMaxRepeat));
    }
    return repeat.get<std::int64_t>();
  }

  // The block's defaults, once per use. A default may name config fields (not other
  // parameters): resolved as the config's are.
  nlohmann::json block_defaults(const std::string& block_name, const nlohmann::json& block) const {
    nlohmann::json params = block.value("params", nlohmann::json::object());
    const nlohmann::json none = nlohmann::json::object();
    interpolate_block_field(params, child_path(child_path(kBlocksPath, block_name), "params"), none,
                            config_, written_.source_map);
    return params;
  }

  // An instance's parameters: the block's `defaults`, then `with`, then `first` or `rest`.
  nlohmann::json instance_params(const std::string& block_name, nlohmann::json params,
                                 const nlohmann::json& entry, const std::string& path,
                                 bool first) const {
    const std::string block_path = child_path(kBlocksPath, block_name);
    const std::vector<std::string> known = keys_of(params);
    for (const char* part : {"with", first ? "first" : "rest"}) {
      if (!entry.contains(part)) continue;
      for (const auto& [key, value] : entry[part].items()) {
        if (!params.contains(key)) {
          std::string suggestion = nearest_match(key, known);
          fail(child_path(child_path(path, part), key),
               fmt::format("block '{}' has no parameter '{}'", block_name, key),
               !suggestion.empty() ? fmt::format("did you mean '{}'?", suggestion)
               : known.empty()     ? fmt::format("it takes none ({}.params)", block_path)
                                   : fmt::format("it takes {}", quoted_list(known)));
        }
        params[key] = value;
      }
    }
    for (const auto& [key, value] : params.items()) {
      if (!value.is_null()) continue;
      fail(path,
           fmt::format("block '{}' needs its parameter '{}' (it has no default){}", block_name, key,
                       entry.contains("repeat") ? (first ? " for the first instance"
                                                         : " for the instances after the first")
                                                : ""),
           fmt::format("give it in `with: {{{}: ...}}`", key));
    }
    return params;
  }

  std::string expand_use(const nlohmann::json& entry, const std::string& path, const Scope& scope,
                         const std::string& input) {
    const std::string block_name = entry.at("block").get<std::string>();
    const nlohmann::json& block = find_block(entry, path);
    for (std::size_t i = 0; i < active_.size(); ++i) {
      if (active_[i] != block_name) continue;
      std::vector<std::string> chain(active_.begin() + static_cast<std::ptrdiff_t>(i),
                                     active_.end());
      chain.push_back(block_name);
      fail(child_path(path, "block"),
           fmt::format("block '{}' uses itself: {}", block_name, fmt::join(chain, " -> ")),
           "a block may use other blocks, never itself");
    }
    if (active_.size() >= kMaxNesting) {
      fail(child_path(path, "block"),
           fmt::format("blocks nest more than {} deep here ({} -> {})", kMaxNesting,
                       fmt::join(active_, " -> "), block_name));
    }
    const std::int64_t repeat = repeat_of(entry, path);
    const std::string name = entry.at("name").get<std::string>();
    const std::string layers_path = child_path(child_path(kBlocksPath, block_name), "layers");
    std::string output = input;
    const nlohmann::json defaults = block_defaults(block_name, block);
    active_.push_back(block_name);
    for (std::int64_t r = 0; r < std::max<std::int64_t>(repeat, 1); ++r) {
      const nlohmann::json params = instance_params(block_name, defaults, entry, path, r == 0);
      Scope instance;
      instance.prefix =
          scope.prefix + name + "." + (repeat > 0 ? fmt::format("{}.", r) : std::string());
      instance.params = &params;
      instance.input = output;
      instance.used_by = scope.top_level() ? path : fmt::format("{} via {}", scope.used_by, path);
      instance.top_entry = scope.top_level() ? path : scope.top_entry;
      output = expand_entries(block["layers"], layers_path, instance);
      current_ = &scope;
    }
    active_.pop_back();
    return output;
  }
};

}  // namespace

bool uses_blocks(const nlohmann::json& config) {
  if (!config.is_object() || !config.contains("model") || !config["model"].is_object()) {
    return false;
  }
  const nlohmann::json& model = config["model"];
  if (model.contains("blocks")) return true;
  if (!model.contains("layers") || !model["layers"].is_array()) return false;
  for (const auto& layer : model["layers"]) {
    if (layer.is_object() && layer.contains("block")) return true;
  }
  return false;
}

ConfigDocument expand_blocks(const ConfigDocument& written) {
  if (!uses_blocks(written.json)) return written;
  ConfigDocument expanded = Expander(written).run();
  validate_config(expanded);
  return expanded;
}

}  // namespace runner
