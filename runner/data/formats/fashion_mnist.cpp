// fashion_mnist: Zalando's clothing images as IDX files, by default Debian's
// dataset-fashion-mnist package; its files' hashes are known, so MNIST reading them is told.
#include "runner/data/dataset_format.h"
#include "runner/data/idx.h"

namespace runner {
namespace {

const IdxDataset& fashion_mnist() {
  static const IdxDataset dataset{"fashion_mnist",
                                  {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal",
                                   "Shirt", "Sneaker", "Bag", "Ankle boot"},
                                  "https://github.com/zalandoresearch/fashion-mnist"};
  return dataset;
}

}  // namespace

RUNNER_DATASET_FORMAT(fashion_mnist) {
  DatasetFormat format = idx_format_base();
  format.default_root = "/usr/share/datasets/fashion-mnist";
  format.class_names = [](const DatasetSpec&) { return fashion_mnist().class_names; };
  format.load = [](const DatasetSpec& spec) {
    return load_idx(spec.root, fashion_mnist(), {28, 28});
  };
  // Debian's files (gzipped IDX), and the same four gunzipped.
  format.known_sha256 = {"b0564c3eedabfbf835052cff8503ea422014ce006caf5b757f851416ee8300c7",
                         "0ae29f65d86684f32d1b9c85147786c547b9c6aebcaf235f0400a0cce308b056",
                         "cc1d090a38ace84dfa1aa66e3ada7c336ef481a96936906477e6dd344da56eaa",
                         "8d3605d196f4be44669e46906da9733c8131fef761fdbfec72c424d5222f1a05",
                         "c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888",
                         "bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9",
                         "5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b",
                         "0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34"};
  return format;
}

}  // namespace runner
