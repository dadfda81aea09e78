// Test-set evaluation from logits on the host.
#include "runner/train/evaluation.h"

#include <algorithm>

namespace runner {

Evaluation evaluate(Program& program, const Dataset& data, int batch) {
  const int classes = data.classes();
  Evaluation result(classes);
  std::vector<float> logits(static_cast<std::size_t>(batch) * classes);
  for (std::size_t start = 0; start < data.size(); start += batch) {
    int count = static_cast<int>(std::min<std::size_t>(batch, data.size() - start));
    program.predict(data.images.data() + start * data.image_bytes(), count, logits.data());
    for (int n = 0; n < count; ++n) {
      result.add(logits.data() + static_cast<std::size_t>(n) * classes, data.labels[start + n]);
    }
  }
  return result;
}

}  // namespace runner
