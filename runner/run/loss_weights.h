// The training loss's class weights and focal gamma as the backends take them (training.loss):
// the config's weights checked against the model's classes, or balanced ones from the training
// split's labels.
#pragma once

#include <string>

#include "backends/common/weighted_cross_entropy.h"
#include "runner/config/experiment.h"
#include "runner/data/dataset.h"
#include "runner/graph/graph.h"

namespace runner {

// A UserError naming training.loss.class_weights when its count is not the model's classes.
void check_class_weights(const Experiment& experiment, const Graph& graph);

// The weighting for a run training on `train`; none for the plain loss. balanced: scikit-learn's
// compute_class_weight("balanced"), n / (classes * count of the class), and 0 for a class the
// training split has no images of (`note` says which).
LossWeighting loss_weighting(const Experiment& experiment, const Dataset& train, std::string& note);

// "loss: cross-entropy, class weights balanced (T-shirt 0.91, ...), focal gamma 2".
std::string loss_text(const Experiment& experiment, const LossWeighting& weighting,
                      const std::vector<std::string>& class_names);

}  // namespace runner
