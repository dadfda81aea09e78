// The stratified validation split.
#include "runner/data/validation_split.h"

#include <fmt/format.h>

#include <cmath>

#include "runner/data/encoded_images.h"
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

// Which rows are held out: the first held_out_per_class of each class's seeded permutation.
std::vector<bool> choose_rows(const Dataset& train, double fraction, std::uint64_t seed,
                              const SourceLocation& where) {
  std::vector<bool> held(train.size(), false);
  const std::uint64_t split_seed = derive_seed(seed, kValidationStream);
  const auto rows = rows_by_class(train);
  const std::vector<std::size_t> take = held_out_per_class(
      images_per_class(train.labels, rows.size()), train.class_names, fraction, where);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const auto order = shuffled_indices(rows[k].size(), derive_seed(split_seed, k));
    for (std::size_t i = 0; i < take[k]; ++i) held[rows[k][order[i]]] = true;
  }
  return held;
}

// The rows of `from` where `keep` says `wanted`, in order. Of a split decoded per epoch, its
// files; the held-out part (`decoded`) is then decoded now, as evaluation reads its pixels.
Dataset select_rows(const Dataset& from, const std::vector<bool>& keep, bool wanted, bool decoded) {
  Dataset out = from;
  out.images.clear();
  out.labels.clear();
  if (from.encoded) {
    auto files = std::make_shared<EncodedImages>(*from.encoded);
    files->files.clear();
    files->skipped = std::make_shared<SkippedWhileTraining>();  // its own record
    for (std::size_t i = 0; i < from.size(); ++i) {
      if (keep[i] != wanted) continue;
      out.labels.push_back(from.labels[i]);
      files->files.push_back(from.encoded->files[i]);
    }
    out.encoded = std::move(files);
    if (decoded) decode_in_memory(out);
    return out;
  }
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

std::vector<std::size_t> images_per_class(const std::vector<std::int32_t>& labels,
                                          std::size_t classes) {
  std::vector<std::size_t> counts(classes, 0);
  for (std::int32_t label : labels) ++counts.at(static_cast<std::size_t>(label));
  return counts;
}

std::vector<std::size_t> held_out_per_class(const std::vector<std::size_t>& images_per_class,
                                            const std::vector<std::string>& class_names,
                                            double fraction, const SourceLocation& where) {
  std::vector<std::size_t> take;
  std::size_t images = 0, held = 0;
  for (std::size_t k = 0; k < images_per_class.size(); ++k) {
    const std::size_t n = images_per_class[k];
    take.push_back(static_cast<std::size_t>(std::llround(fraction * static_cast<double>(n))));
    if (n > 0 && take[k] >= n) {
      throw_user_error(where,
                       fmt::format("found {}, which holds out all {} training image{} of class "
                                   "'{}' and leaves none to train on",
                                   fraction, n, n == 1 ? "" : "s", class_names.at(k)),
                       "expected a smaller share, or more images of that class");
    }
    images += n;
    held += take[k];
  }
  if (held == 0) {
    throw_user_error(where,
                     fmt::format("found {}, which holds out no image of the {} training images "
                                 "(round({} x the images of each class) is 0 for every class)",
                                 fraction, images, fraction),
                     "expected a larger share, or more training images");
  }
  return take;
}

void hold_out_validation(DatasetSplits& splits, double fraction, std::uint64_t seed,
                         const SourceLocation& where) {
  if (fraction <= 0 || splits.validation.size() > 0) return;
  const std::vector<bool> held = choose_rows(splits.train, fraction, seed, where);
  Dataset validation = select_rows(splits.train, held, true, true);
  validation.setting = "dataset.validation_split";
  splits.train = select_rows(splits.train, held, false, false);
  splits.validation = std::move(validation);
}

}  // namespace runner
