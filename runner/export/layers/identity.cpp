// Layers that do nothing at inference: dropout and drop_path pass their input on (no node).
#include "runner/export/onnx_layer.h"

namespace runner {

RUNNER_ONNX_LAYER(dropout) {
  return layer.inputs[0];
}

RUNNER_ONNX_LAYER(drop_path) {
  return layer.inputs[0];
}

}  // namespace runner
