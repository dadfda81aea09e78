// The config path of `runner validate`, from YAML text to a checked graph, with no file read
// (but the schemas) and none written: what the fuzz target and the crash-input test run.
#pragma once

#include <string>

namespace runner::fuzzing {

// YAML -> JSON -> schema validation -> resolved experiment (no overrides) -> dataset geometry
// -> graph (shape inference) -> parameter, FLOP, memory and host-memory figures, as
// Session::prepare and the sweep plan compute them. `file` names the text in messages.
// A bad config throws UserError; anything else escaping (another exception, a crash) is a defect.
void check_config_text(const std::string& yaml, const std::string& file = "fuzz.yaml");

}  // namespace runner::fuzzing
