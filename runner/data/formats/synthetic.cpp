// synthetic: learnable images made from the config's settings (no files), for tests and benches.
#include "runner/data/synthetic.h"

#include <fmt/format.h>

#include "runner/data/dataset_format.h"

namespace runner {

RUNNER_DATASET_FORMAT(synthetic) {
  DatasetFormat format;
  format.uses_root = false;
  format.keys = {"synthetic"};
  format.read = [](const SettingsReader& settings, DatasetSpec& spec) {
    auto f = settings.mapping("synthetic");
    SyntheticSpec& s = spec.synthetic;
    s.channels = f->integer("channels", s.channels);
    s.height = f->integer("height", s.height);
    s.width = f->integer("width", s.width);
    s.classes = f->integer("classes", s.classes);
    s.train_count = f->integer("train_count", s.train_count);
    s.test_count = f->integer("test_count", s.test_count);
  };
  format.write = [](const DatasetSpec& spec, nlohmann::json& out) {
    const SyntheticSpec& s = spec.synthetic;
    out["synthetic"] = {
        {"channels", s.channels}, {"height", s.height},           {"width", s.width},
        {"classes", s.classes},   {"train_count", s.train_count}, {"test_count", s.test_count}};
  };
  format.image = [](const DatasetSpec& spec) {
    return ImageShape{spec.synthetic.channels, spec.synthetic.height, spec.synthetic.width};
  };
  format.class_names = [](const DatasetSpec& spec) {
    return synthetic_class_names(spec.synthetic.classes);
  };
  format.planned_records = [](const DatasetSpec& spec) {
    const SyntheticSpec& s = spec.synthetic;
    return DatasetRecords{s.train_count, s.test_count,
                          std::int64_t{s.channels} * s.height * s.width};
  };
  format.training_labels = [](const DatasetSpec& spec) {
    return synthetic_train_labels(spec.synthetic, 0);
  };
  format.load = [](const DatasetSpec& spec) { return make_synthetic(spec.synthetic, 0); };
  format.identity = [](const DatasetSpec& spec) {  // the generator's settings are the data
    const SyntheticSpec& s = spec.synthetic;
    return fmt::format("synthetic {} {} {} {} {} {}\n", s.channels, s.height, s.width, s.classes,
                       s.train_count, s.test_count);
  };
  return format;
}

}  // namespace runner
