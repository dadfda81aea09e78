// The stratified validation split.
#include "runner/data/validation_split.h"

#include <fmt/format.h>

#include <cmath>

#include "runner/util/random.h"

namespace runner {
namespace {

// The split's own random stream: other draws of the same seed (shuffles, augmentation,
// initialisation) do not move when validation_split is set.
constexpr std::uint64_t kValidationStream = 0x76616c6964ull;  // "valid"

// The rows of each class, in file order.
std::vector<std::vector<std::size_t>> rows_by_class(const Dataset& data) {
  std::vector<std::vector<std::size_t>> rows(static_cast<std::size_t>(data.classes()));
  for (std::size_t i = 0; i < data.size(); ++i) {
    rows.at(static_cast<std::size_t>(data.labels[i])).push_back(i);
  }
  return rows;
}

// Which rows are held out: the first round(fraction x n) of each class's seeded permutation.
std::vector<bool> choose_rows(const Dataset& train, double fraction, std::uint64_t seed,
                              const SourceLocation& where) {
  std::vector<bool> held(train.size(), false);
  const std::uint64_t split_seed = derive_seed(seed, kValidationStream);
  const auto rows = rows_by_class(train);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const std::size_t n = rows[k].size();
    const auto take = static_cast<std::size_t>(std::llround(fraction * static_cast<double>(n)));
    if (n > 0 && take >= n) {
      throw_user_error(where,
                       fmt::format("found {}, which holds out all {} training image{} of class "
                                   "'{}' and leaves none to train on",
                                   fraction, n, n == 1 ? "" : "s", train.class_names[k]),
                       "expected a smaller share, or more images of that class");
    }
    const auto order = shuffled_indices(n, derive_seed(split_seed, k));
    for (std::size_t i = 0; i < take; ++i) held[rows[k][order[i]]] = true;
  }
  return held;
}

// The rows of `from` where `keep` says `wanted`, in order.
Dataset select_rows(const Dataset& from, const std::vector<bool>& keep, bool wanted) {
  Dataset out = from;
  out.images.clear();
  out.labels.clear();
  const std::size_t bytes = from.image_bytes();
  for (std::size_t i = 0; i < from.size(); ++i) {
    if (keep[i] != wanted) continue;
    out.labels.push_back(from.labels[i]);
    out.images.insert(out.images.end(), from.images.begin() + i * bytes,
                      from.images.begin() + (i + 1) * bytes);
  }
  out.images.shrink_to_fit();
  out.labels.shrink_to_fit();
  return out;
}

}  // namespace

void hold_out_validation(DatasetSplits& splits, double fraction, std::uint64_t seed,
                         const SourceLocation& where) {
  if (fraction <= 0 || splits.validation.size() > 0) return;
  const std::vector<bool> held = choose_rows(splits.train, fraction, seed, where);
  Dataset validation = select_rows(splits.train, held, true);
  if (validation.size() == 0) {
    throw_user_error(where,
                     fmt::format("found {}, which holds out no image of the {} training images "
                                 "(round({} x the images of each class) is 0 for every class)",
                                 fraction, splits.train.size(), fraction),
                     "expected a larger share, or more training images");
  }
  splits.train = select_rows(splits.train, held, false);
  splits.validation = std::move(validation);
}

}  // namespace runner
