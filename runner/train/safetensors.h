// Checkpoints in the safetensors format: an 8-byte little-endian header length, a JSON header
// (dtype, shape, data offsets per tensor, plus string metadata), then the raw tensor bytes.
// PyTorch's `safetensors` package reads these files.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "backends/backend.h"

namespace runner {

struct Checkpoint {
  std::vector<HostTensor> tensors;
  std::map<std::string, std::string> metadata;
};

// Writes atomically (temporary file, then rename).
void save_safetensors(const std::filesystem::path& path, const Checkpoint& checkpoint);
// Reads F32 tensors; a corrupt or truncated file is a UserError naming the file and the problem.
Checkpoint load_safetensors(const std::filesystem::path& path);

}  // namespace runner
