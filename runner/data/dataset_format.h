// The dataset-format registry: what a format is (its name, own config keys, image shape, record
// counts, default root, class names, loader and fingerprint). A format is defined in its own file
// in formats/ with `RUNNER_DATASET_FORMAT(name) { ... }`; the build lists those lines
// (cmake/registry.cmake), so that file is all the registry needs, as for layer kinds.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runner/data/dataset.h"
#include "runner/data/dataset_size.h"
#include "runner/data/dataset_spec.h"
#include "runner/data/settings_reader.h"

namespace runner {

struct DatasetFormat {
  std::string name;  // set by the registry from the RUNNER_DATASET_FORMAT name
  // The folder of its files when dataset.root is not given ("": root is required, or unused).
  std::string default_root;
  bool uses_root = true;  // false: no files at all (synthetic)
  // Its own dataset.* keys, beyond those every format has (the schema lists both kinds); a key
  // of another format is refused, naming the formats it belongs to.
  std::vector<std::string> keys;
  // Reads its own keys into `spec` (name, root and the common keys are already read). None:
  // it has no keys.
  void (*read)(const SettingsReader& settings, DatasetSpec& spec) = nullptr;
  // Its own keys as resolved, defaults included, into the resolved config's dataset block.
  void (*write)(const DatasetSpec& spec, nlohmann::json& dataset) = nullptr;
  // The image each record is and the model takes, from the config alone.
  ImageShape (*image)(const DatasetSpec& spec) = nullptr;
  // The class names in label order, from the format's fixed list or its metadata (a names
  // file, the class folders): cheap, no image is read. May throw a UserError naming the file.
  std::vector<std::string> (*class_names)(const DatasetSpec& spec) = nullptr;
  // Where those names come from, for a model whose outputs differ ("ROOT/batches.meta.txt lists
  // 3 class names"). None: the format's fixed list, or its settings.
  std::string (*classes_origin)(const DatasetSpec& spec) = nullptr;
  // The records it will load, from the files' headers or sizes; never throws for the files' sake.
  DatasetRecords (*planned_records)(const DatasetSpec& spec) = nullptr;
  // For `runner validate`: checks the files' headers as loading does, without reading the
  // images (a UserError for what loading would refuse), and returns the files that are not
  // there yet. None: nothing to check beyond class_names and planned_records.
  std::vector<std::string> (*check_files)(const DatasetSpec& spec) = nullptr;
  // The training split's labels in file order, before the limits, listed without decoding an
  // image (`runner validate` checks dataset.validation_split with them; planned_split.h). May
  // throw a UserError as loading would. None: known only once the records are read (CIFAR).
  std::vector<std::int32_t> (*training_labels)(const DatasetSpec& spec) = nullptr;
  // Fetches missing files into spec.root (dataset.download). None: the format cannot.
  void (*download)(const DatasetSpec& spec) = nullptr;
  // Both splits; the files read go to DatasetSplits::files. A format may apply the limits itself
  // (the image formats do, before reading an image); load_dataset then cuts nothing more.
  DatasetSplits (*load)(const DatasetSpec& spec) = nullptr;
  // What the data is when there are no files to hash (synthetic: its settings). None: the files.
  std::string (*identity)(const DatasetSpec& spec) = nullptr;
  // SHA-256s of files known to be this dataset's, so that another format reading them is told.
  std::vector<std::string> known_sha256;
};

// Defines the dataset format `name` (the config's dataset.name): a body returning its entry.
#define RUNNER_DATASET_FORMAT(name) DatasetFormat dataset_format_##name()

const std::vector<DatasetFormat>& dataset_formats();
// The format named `name`, or nullptr.
const DatasetFormat* find_dataset_format(const std::string& name);
// The names, sorted: for errors and the schema test.
std::vector<std::string> dataset_format_names();
// The dataset.* keys every format has.
const std::vector<std::string>& common_dataset_keys();

// The spec's format; a UserError for a spec that was never resolved (a broken invariant in the
// caller, but one a test can see).
const DatasetFormat& format_of(const DatasetSpec& spec);

}  // namespace runner
