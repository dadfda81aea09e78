// cifar10: the CIFAR-10 binary files (data_batch_1..5.bin, test_batch.bin), downloaded into
// dataset.root on request; any class count: the names in batches.meta.txt, else the standard ten.
#include "runner/data/cifar10.h"

#include "runner/data/cifar_format.h"
#include "runner/data/download.h"

namespace runner {
namespace {

const CifarFiles& cifar10_files_of(const DatasetSpec&) {
  return cifar10_files();
}

}  // namespace

RUNNER_DATASET_FORMAT(cifar10) {
  DatasetFormat format = cifar_format_base<cifar10_files_of>();
  format.default_root = "data/cifar-10-batches-bin";
  format.download = download_cifar10;
  return format;
}

}  // namespace runner
