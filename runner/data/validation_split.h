// dataset.validation_split: a seeded, stratified share of the training set held out as the
// validation set, before any batch is drawn (so the same rows whatever dataset.workers is).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runner/data/dataset.h"
#include "runner/util/errors.h"

namespace runner {

// Moves round(fraction x n_k) of the n_k training rows of each class k, chosen by a permutation
// seeded by (seed, k), into splits.validation; both keep the rows' order in the file. Nothing
// happens for a fraction of 0 or when a format filled splits.validation itself. A split that
// leaves a class without training rows, or holds out nothing, is a UserError at `where`.
void hold_out_validation(DatasetSplits& splits, double fraction, std::uint64_t seed,
                         const SourceLocation& where);

// The images of each class among `labels` (each below `classes`).
std::vector<std::size_t> images_per_class(const std::vector<std::int32_t>& labels,
                                          std::size_t classes);

// The rule both `run` (hold_out_validation, on the loaded data) and `validate` (planned_split.h,
// on the listed labels) split by: round(fraction x n_k) of the n_k training images of class k are
// held out. A UserError at `where` when that leaves a class without training images or holds out
// nothing at all.
std::vector<std::size_t> held_out_per_class(const std::vector<std::size_t>& images_per_class,
                                            const std::vector<std::string>& class_names,
                                            double fraction, const SourceLocation& where);

}  // namespace runner
