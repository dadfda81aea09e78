// The counts of an evaluated set (test or validation): images right, the mean loss, per-class
// counts, the confusion pairs and where the true class ranked, from each image's logits. Every
// figure the runner reports of a set (accuracy, the `metrics` list) is a function of them.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace runner {

struct Evaluation {
  std::int64_t count = 0;
  std::int64_t correct = 0;
  double loss = 0;  // mean cross-entropy
  std::vector<std::int64_t> class_correct, class_total;
  // Images by (true class, predicted class), only the pairs that occur: memory grows with the
  // images, not with the square of the classes (a CSV may name thousands).
  std::map<std::pair<int, int>, std::int64_t> confusion;
  // [r]: images whose true class had rank r among the logits (0: the prediction). Ties go to
  // the lower class index, as the prediction (the first largest logit) does.
  std::vector<std::int64_t> label_rank_counts;
  double loss_sum = 0;  // the images' summed cross-entropy

  // Sized for `classes`, nothing counted.
  explicit Evaluation(int classes = 0);
  // Counts one image: its logits (`classes` of them) and true class; `loss` is the mean of the
  // images counted so far.
  void add(const float* logits, int label);

  int classes() const { return static_cast<int>(class_total.size()); }
  double accuracy() const { return count ? static_cast<double>(correct) / count : 0.0; }
  // False for a class without images in the evaluated set: its accuracy is not a number.
  bool has_images(int k) const {
    const auto i = static_cast<std::size_t>(k);
    return i < class_total.size() && class_total[i] > 0;
  }
  std::int64_t confused(int truth, int predicted) const {
    auto found = confusion.find({truth, predicted});
    return found == confusion.end() ? 0 : found->second;
  }
  double class_accuracy(int k) const {
    const auto i = static_cast<std::size_t>(k);
    return i < class_total.size() && class_total[i]
               ? static_cast<double>(class_correct[i]) / class_total[i]
               : 0.0;
  }
  // Images predicted as each class (the confusion matrix's column sums).
  std::vector<std::int64_t> predicted_totals() const;
  // Images whose true class was among the k largest logits.
  std::int64_t top_k_correct(int k) const;
};

}  // namespace runner
