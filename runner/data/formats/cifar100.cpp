// cifar100: the CIFAR-100 binary files (train.bin, test.bin), downloaded into dataset.root on
// request; dataset.label picks the 100 fine classes (the default) or the 20 coarse ones.
#include "runner/data/cifar100.h"

#include "runner/data/cifar_format.h"
#include "runner/data/download.h"

namespace runner {
namespace {

const CifarFiles& cifar100_files_of(const DatasetSpec& spec) {
  return cifar100_files(spec.label);
}

}  // namespace

RUNNER_DATASET_FORMAT(cifar100) {
  DatasetFormat format = cifar_format_base<cifar100_files_of>();
  format.default_root = "data/cifar-100-binary";
  format.keys = {"label", "url"};
  format.read = [](const SettingsReader& settings, DatasetSpec& spec) {
    const std::string label = settings.text("label", cifar_label_name(spec.label));
    if (label == "fine") {
      spec.label = CifarLabel::fine;
    } else if (label == "coarse") {
      spec.label = CifarLabel::coarse;
    } else {
      settings.wrong("label", "fine (100 classes) or coarse (20 superclasses)");
    }
    spec.url = settings.text("url", "");
  };
  format.write = [](const DatasetSpec& spec, nlohmann::json& out) {
    out["label"] = cifar_label_name(spec.label);
    if (!spec.url.empty()) out["url"] = spec.url;
  };
  format.download = download_cifar100;
  return format;
}

}  // namespace runner
