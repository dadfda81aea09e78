// The image shape and class count a dataset spec implies, known before any image is read, so
// the graph's shapes can be checked before data is loaded or memory allocated.
#pragma once

#include <string>
#include <vector>

#include "runner/data/dataset_spec.h"
#include "runner/graph/graph.h"

namespace runner {

struct DatasetGeometry {
  Shape image;
  int classes = 0;
  std::vector<std::string> class_names;  // in label order
  std::string classes_origin;            // where the names come from, for messages ("": fixed)
};

// From the spec's format: its image, and its class names (a names file or the class folders
// are read, no image). A UserError when the format cannot tell (a missing image folder).
DatasetGeometry dataset_geometry(const DatasetSpec& spec);

// build_graph for the geometry's image and classes: a model whose outputs are not the class
// count is told where that count comes from.
Graph build_graph(const ModelSpec& model, const DatasetGeometry& geometry);

}  // namespace runner
