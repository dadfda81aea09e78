// Training a config's network on oneDNN for a few epochs, for the tests that check a network
// written as a config learns (NormTraining, VitTraining).
#pragma once

#include <vector>

#include "runner/config/load_config.h"

namespace runner::testing {

// The mean training loss of each of `epochs` epochs over the config's training set (a whole
// number of its batches), from seed-1 parameters, with its optimizer at a constant rate.
std::vector<double> onednn_epoch_losses(const Experiment& e, Precision precision, int epochs);

// Every loss finite, and the last below 0.8 of the first.
void expect_falling_losses(const std::vector<double>& losses);

}  // namespace runner::testing
