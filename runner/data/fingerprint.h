// What data a run actually read: each file's name, size and SHA-256, so that a report says which
// bytes it trained on and `runner reproduce` can tell when the data has changed. Hashes are kept
// in a cache keyed by path, size and modification time (a file is hashed once).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runner/data/dataset_spec.h"

namespace runner {

struct FileFingerprint {
  std::string path;
  std::uintmax_t bytes = 0;
  std::string sha256;
};

// The files in order, hashed (or found in the cache). A cache file that is there but is not one
// (a FIFO, a link, a forged file) adds a warning naming it to `warnings`, and is replaced.
std::vector<FileFingerprint> fingerprint_files(const std::vector<std::filesystem::path>& files,
                                               std::vector<std::string>& warnings);

// The report's `data` block: name, root, one digest over all files, and each file.
nlohmann::json data_json(const DatasetSpec& spec, const std::vector<FileFingerprint>& files);

// A UserError when the files are a known dataset other than the one the config names (the
// Fashion-MNIST files read as `mnist`, say), instead of a report that names the wrong data.
void check_known_dataset(const DatasetSpec& spec, const std::vector<FileFingerprint>& files);

}  // namespace runner
