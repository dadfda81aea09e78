// Fetching a CIFAR binary archive (libcurl), checking its MD5 and unpacking it (libarchive)
// into the dataset folder, so that a reader never sees a half-written folder.
#pragma once

#include <filesystem>
#include <string>

#include "runner/data/cifar_records.h"
#include "runner/data/dataset_spec.h"

namespace runner {

// When files are missing at spec.root: downloads spec.url (the official URL when empty), checks
// the official MD5 and moves the unpacked files into spec.root. Does nothing when all are there.
void download_cifar10(const DatasetSpec& spec);
void download_cifar100(const DatasetSpec& spec);

// The steps of those with the expected MD5 as a parameter: downloads `url` next to `root`,
// checks its MD5, unpacks it to a temporary folder and renames its files.archive_folder
// (cifar-10-batches-bin) to `root` (when `root` is absent or empty; else moves in the files
// `root` lacks). Temporaries are removed on failure; failures are UserErrors saying how to do it
// by hand.
void download_cifar_archive(const CifarFiles& files, const std::string& url,
                            const std::filesystem::path& root, const std::string& expected_md5);
// download_cifar_archive of CIFAR-10's files.
void download_cifar10_archive(const std::string& url, const std::filesystem::path& root,
                              const std::string& expected_md5);

}  // namespace runner
