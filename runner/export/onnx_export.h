// A trained model as an ONNX model (opset 13): the run's normalisation of 0-255 pixel values
// first, then the layers (each kind's export: onnx_layer.h), the logits as output "logits", and
// optionally their softmax as "probabilities".
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "runner/data/dataset_spec.h"
#include "runner/export/onnx_layer.h"
#include "runner/graph/graph.h"

namespace runner {

struct OnnxExportSpec {
  std::string name;         // the graph's name (the run's)
  Normalization normalize;  // the run's dataset.normalize
  bool softmax = false;     // a second output, "probabilities"
  std::int64_t batch = 0;   // a fixed batch size; 0: any (the symbolic dimension "batch")
  std::string doc;          // the model's doc_string
  std::vector<std::pair<std::string, std::string>> metadata;
};

// The model's bytes (a serialized ModelProto). A tensor the graph needs that `weights` lacks is
// a UserError naming it.
std::string export_onnx(const Graph& graph, const ExportWeights& weights,
                        const OnnxExportSpec& spec);

}  // namespace runner
