// The error of a graph that does not build, for the graph tests of shape rules.
#pragma once

#include <string>

#include "runner/graph/graph.h"

namespace runner::testing {

// The message of the UserError that building `model` on `input` throws; "no error" when it builds.
inline std::string graph_error(const ModelSpec& model, Shape input, int classes = 3) {
  try {
    build_graph(model, input, classes);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace runner::testing
