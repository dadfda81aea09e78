// Test-set evaluation from logits on the host.
#include "runner/train/evaluation.h"

#include <algorithm>
#include <cmath>

namespace runner {

Evaluation evaluate(Program& program, const Dataset& data, int batch) {
  const int classes = data.classes();
  Evaluation result;
  result.class_correct.assign(classes, 0);
  result.class_total.assign(classes, 0);
  std::vector<float> logits(static_cast<std::size_t>(batch) * classes);
  double loss_sum = 0;
  for (std::size_t start = 0; start < data.size(); start += batch) {
    int count = static_cast<int>(std::min<std::size_t>(batch, data.size() - start));
    program.predict(data.images.data() + start * data.image_bytes(), count, logits.data());
    for (int n = 0; n < count; ++n) {
      const float* z = logits.data() + static_cast<std::size_t>(n) * classes;
      int label = data.labels[start + n];
      int predicted = static_cast<int>(std::max_element(z, z + classes) - z);
      float max = z[predicted];
      double sum = 0;
      for (int k = 0; k < classes; ++k) sum += std::exp(static_cast<double>(z[k] - max));
      loss_sum += std::log(sum) + max - z[label];
      ++result.class_total[label];
      ++result.confusion[{label, predicted}];
      if (predicted == label) {
        ++result.class_correct[label];
        ++result.correct;
      }
    }
    result.count += count;
  }
  result.loss = result.count ? loss_sum / static_cast<double>(result.count) : 0.0;
  return result;
}

}  // namespace runner
