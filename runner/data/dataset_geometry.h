// The image shape and class count a dataset spec implies, known before any file is read, so
// the graph's shapes can be checked before data is loaded or memory allocated.
#pragma once

#include "runner/config/experiment.h"
#include "runner/graph/graph.h"

namespace runner {

struct DatasetGeometry {
  Shape image;
  int classes = 0;
};

DatasetGeometry dataset_geometry(const DatasetSpec& spec);

}  // namespace runner
