// Reading and writing safetensors files (F32 tensors, little-endian hosts).
#include "runner/train/safetensors.h"

#include <bit>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runner/util/errors.h"
#include "runner/util/files.h"

namespace runner {

static_assert(std::endian::native == std::endian::little, "safetensors stores little-endian data");

void save_safetensors(const std::filesystem::path& path, const Checkpoint& checkpoint) {
  nlohmann::ordered_json header;
  if (!checkpoint.metadata.empty()) header["__metadata__"] = checkpoint.metadata;
  std::size_t offset = 0;
  for (const auto& t : checkpoint.tensors) {
    std::size_t bytes = t.values.size() * sizeof(float);
    header[t.name] = {{"dtype", "F32"}, {"shape", t.dims}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // align the data to 8 bytes
  std::uint64_t length = text.size();
  std::string file(8, '\0');
  std::memcpy(file.data(), &length, 8);
  file += text;
  file.reserve(file.size() + offset);
  for (const auto& t : checkpoint.tensors) {
    file.append(reinterpret_cast<const char*>(t.values.data()), t.values.size() * sizeof(float));
  }
  write_file_atomically(path, file);
}

Checkpoint load_safetensors(const std::filesystem::path& path) {
  const std::string name = path.string();
  std::string file = read_file(path);
  auto corrupt = [&](const std::string& problem) {
    return UserError(fmt::format("{}: not a valid safetensors checkpoint: {}", name, problem));
  };
  if (file.size() < 8) throw corrupt(fmt::format("{} bytes, expected at least 8", file.size()));
  std::uint64_t length;
  std::memcpy(&length, file.data(), 8);
  if (length > file.size() - 8) {
    throw corrupt(fmt::format("header of {} bytes but the file has {} bytes after the length", length,
                              file.size() - 8));
  }
  nlohmann::json header = nlohmann::json::parse(file.begin() + 8, file.begin() + 8 + static_cast<std::ptrdiff_t>(length), nullptr, false);
  if (header.is_discarded() || !header.is_object()) throw corrupt("the header is not a JSON object");
  const std::size_t data_start = 8 + length;
  const std::size_t data_size = file.size() - data_start;

  Checkpoint checkpoint;
  for (const auto& [key, entry] : header.items()) {
    if (key == "__metadata__") {
      for (const auto& [k, v] : entry.items()) {
        if (v.is_string()) checkpoint.metadata[k] = v.get<std::string>();
      }
      continue;
    }
    if (!entry.is_object() || entry.value("dtype", "") != "F32" || !entry.contains("shape") ||
        !entry.contains("data_offsets")) {
      throw corrupt(fmt::format("tensor '{}': expected dtype F32 with shape and data_offsets, found {}",
                                key, entry.dump()));
    }
    HostTensor t;
    t.name = key;
    t.dims = entry["shape"].get<std::vector<std::int64_t>>();
    auto offsets = entry["data_offsets"].get<std::vector<std::size_t>>();
    std::int64_t elements = 1;
    for (auto d : t.dims) elements *= d;
    if (offsets.size() != 2 || offsets[1] < offsets[0] || offsets[1] > data_size ||
        offsets[1] - offsets[0] != static_cast<std::size_t>(elements) * sizeof(float)) {
      throw corrupt(fmt::format("tensor '{}': data_offsets {} do not fit its shape or the {} data bytes",
                                key, entry["data_offsets"].dump(), data_size));
    }
    t.values.resize(static_cast<std::size_t>(elements));
    std::memcpy(t.values.data(), file.data() + data_start + offsets[0], offsets[1] - offsets[0]);
    checkpoint.tensors.push_back(std::move(t));
  }
  return checkpoint;
}

}  // namespace runner
