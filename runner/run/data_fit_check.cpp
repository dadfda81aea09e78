// Shapes, class counts and emptiness of the loaded splits against the compiled graph.
#include "runner/run/data_fit_check.h"

#include <fmt/format.h>

#include "runner/util/errors.h"

namespace runner {
namespace {

void check_split(const Dataset& split, const char* which, const Graph& graph) {
  const Shape images{split.channels, split.height, split.width};
  if (split.size() == 0) {  // named by its file or folder and the field that chose it
    const std::string field = split.setting.empty() ? "" : " (" + split.setting + ")";
    throw UserError(fmt::format("{}: the {} split{} holds no images, expected at least one",
                                split.source.empty() ? split.setting : split.source, which,
                                split.source.empty() ? "" : field));
  }
  if (!(images == graph.input)) {
    throw UserError(
        fmt::format("{}: the {} images are {} (channels x height x width), but the "
                    "model's input is {}, as the config's dataset implies",
                    split.source, which, images.str(), graph.input.str()));
  }
  if (split.classes() != graph.classes) {
    throw UserError(
        fmt::format("{}: the data has {} classes, but the model's output layer gives "
                    "{} values per image",
                    split.source, split.classes(), graph.classes));
  }
}

}  // namespace

void check_data_fits_model(const DatasetSplits& data, const Graph& graph) {
  check_split(data.train, "training", graph);
  if (data.validation.size() > 0) check_split(data.validation, "validation", graph);
  // Without a test set the validation set measures the model; with neither, nothing would.
  if (data.test.size() > 0 || data.validation.size() == 0) check_split(data.test, "test", graph);
}

}  // namespace runner
