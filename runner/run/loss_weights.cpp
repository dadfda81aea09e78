// Class weights of the training loss.
#include "runner/run/loss_weights.h"

#include <fmt/format.h>

#include "runner/util/errors.h"

namespace runner {

void check_class_weights(const Experiment& experiment, const Graph& graph) {
  const std::vector<double>& weights = experiment.training.loss_options.class_weights;
  if (weights.empty() || static_cast<int>(weights.size()) == graph.classes) return;
  throw UserError(fmt::format(
      "{}: training.loss.class_weights: found {} weight{}, expected {} (one per class of the "
      "model's output, in its order)",
      experiment.source_file, weights.size(), weights.size() == 1 ? "" : "s", graph.classes));
}

LossWeighting loss_weighting(const Experiment& experiment, const Dataset& train,
                             std::string& note) {
  const LossSpec& spec = experiment.training.loss_options;
  LossWeighting weighting;
  weighting.focal_gamma = spec.focal_gamma;
  for (double w : spec.class_weights) weighting.class_weights.push_back(static_cast<float>(w));
  if (!spec.balanced) return weighting;
  const int classes = train.classes();
  std::vector<std::int64_t> counts(static_cast<std::size_t>(classes), 0);
  for (std::int32_t label : train.labels) ++counts[static_cast<std::size_t>(label)];
  std::vector<std::string> missing;
  for (int k = 0; k < classes; ++k) {
    const std::int64_t count = counts[static_cast<std::size_t>(k)];
    if (count == 0) {
      missing.push_back(static_cast<std::size_t>(k) < train.class_names.size()
                            ? train.class_names[static_cast<std::size_t>(k)]
                            : std::to_string(k));
    }
    weighting.class_weights.push_back(
        count == 0
            ? 0.f
            : static_cast<float>(static_cast<double>(train.size()) /
                                 (static_cast<double>(classes) * static_cast<double>(count))));
  }
  if (!missing.empty()) {
    note = fmt::format(
        "training.loss.class_weights: balanced, but the training split has no images of {} "
        "({} class{}): weight 0",
        fmt::join(missing.begin(), missing.begin() + std::min<std::size_t>(missing.size(), 5),
                  ", "),
        missing.size(), missing.size() == 1 ? "" : "es");
  }
  return weighting;
}

std::string loss_text(const Experiment& experiment, const LossWeighting& weighting,
                      const std::vector<std::string>& class_names) {
  const LossSpec& spec = experiment.training.loss_options;
  std::string text = "loss: cross-entropy";
  if (experiment.training.label_smoothing != 0) {
    text += fmt::format(", label smoothing {:g}", experiment.training.label_smoothing);
  }
  if (!weighting.class_weights.empty()) {
    std::vector<std::string> shown;
    for (std::size_t k = 0; k < weighting.class_weights.size() && k < 10; ++k) {
      shown.push_back(fmt::format("{} {:.3g}", k < class_names.size() ? class_names[k] : "?",
                                  weighting.class_weights[k]));
    }
    text += fmt::format(", class weights{} ({}{})", spec.balanced ? " balanced" : "",
                        fmt::join(shown, ", "), weighting.class_weights.size() > 10 ? ", ..." : "");
  }
  if (spec.focal_gamma != 0) text += fmt::format(", focal gamma {:g}", spec.focal_gamma);
  return text;
}

}  // namespace runner
