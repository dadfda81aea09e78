// CIFAR-10's files and names; the reading is cifar_records', shared with CIFAR-100.
#include "runner/data/cifar10.h"

namespace runner {

const CifarFiles& cifar10_files() {
  static const CifarFiles files = [] {
    CifarFiles f;
    f.name = "cifar10";
    f.title = "CIFAR-10";
    f.label_bytes = 1;
    f.label_byte = 0;
    f.label_kind = "label";
    f.train = {"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin", "data_batch_4.bin",
               "data_batch_5.bin"};
    f.test = kCifar10TestFile;
    f.official_train = 50'000;
    f.official_test = 10'000;
    f.max_file_bytes = std::size_t{300} << 20;  // the batches are 30 MB: 10 times that is not one
    f.names_file = "batches.meta.txt";
    f.official_names = {"airplane", "automobile", "bird",  "cat",  "deer",
                        "dog",      "frog",       "horse", "ship", "truck"};
    f.url = kCifar10Url;
    f.archive_folder = "cifar-10-batches-bin";
    f.max_archive_bytes = std::size_t{200} << 20;  // the archive is 170 MB
    return f;
  }();
  return files;
}

const std::vector<std::string>& cifar10_train_files() {
  return cifar10_files().train;
}

std::string cifar10_by_hand_hint(const std::filesystem::path& root, bool offer_download) {
  return cifar_by_hand_hint(cifar10_files(), root, offer_download);
}

std::vector<std::string> missing_cifar10_files(const std::filesystem::path& root) {
  return missing_cifar_files(cifar10_files(), root);
}

std::vector<std::string> read_cifar10_class_names(const std::filesystem::path& root) {
  return read_cifar_class_names(cifar10_files(), root).names;
}

DatasetSplits load_cifar10(const std::filesystem::path& root) {
  return load_cifar(cifar10_files(), root);
}

}  // namespace runner
