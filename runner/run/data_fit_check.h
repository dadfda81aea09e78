// The data as read against the model: shapes, class counts and sizes must fit before training,
// since the graph was built from the config's idea of the data, not from the files.
#pragma once

#include "runner/data/dataset.h"
#include "runner/graph/graph.h"

namespace runner {

// A UserError naming the file (or config field) and both shapes or counts when the images are
// not the model's input shape, the data has another number of classes than the model's outputs,
// or the training split is empty (or the test split, when there is no validation set).
void check_data_fits_model(const DatasetSplits& data, const Graph& graph);

}  // namespace runner
