// Checkpoints in the safetensors format: an 8-byte little-endian header length, a JSON header
// (dtype, shape, data offsets per tensor, plus string metadata), then the raw tensor bytes.
// PyTorch's `safetensors` package reads these files.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "backends/backend.h"

namespace runner {

struct Checkpoint {
  std::vector<HostTensor> tensors;
  std::map<std::string, std::string> metadata;
  std::string sha256;  // of the file's bytes, when read
};

// Writes atomically (temporary file, then rename).
void save_safetensors(const std::filesystem::path& path, const Checkpoint& checkpoint);
// Reads F32 and I64 tensors; a corrupt or truncated file (a key given twice, a shape that is not
// whole numbers, an unknown dtype, offsets that overlap or leave gaps, metadata that is not text)
// is a UserError naming the file, the tensor and the problem.
Checkpoint load_safetensors(const std::filesystem::path& path);
// The same from the file's bytes (what load_safetensors reads; the fuzz target feeds it any
// bytes): `name` names the file in messages.
Checkpoint parse_safetensors(std::string_view file, const std::string& name);

}  // namespace runner
