// dataset.validation_split: a seeded, stratified share of the training set held out as the
// validation set, before any batch is drawn (so the same rows whatever dataset.workers is).
#pragma once

#include <cstdint>

#include "runner/data/dataset.h"
#include "runner/util/errors.h"

namespace runner {

// Moves round(fraction x n_k) of the n_k training rows of each class k, chosen by a permutation
// seeded by (seed, k), into splits.validation; both keep the rows' order in the file. Nothing
// happens for a fraction of 0 or when a format filled splits.validation itself. A split that
// leaves a class without training rows, or holds out nothing, is a UserError at `where`.
void hold_out_validation(DatasetSplits& splits, double fraction, std::uint64_t seed,
                         const SourceLocation& where);

}  // namespace runner
