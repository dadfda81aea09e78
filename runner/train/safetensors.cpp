// Reading and writing safetensors files (F32 and I64 tensors, little-endian hosts).
#include "runner/train/safetensors.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>

#include "runner/util/digest.h"
#include "runner/util/errors.h"
#include "runner/util/files.h"

namespace runner {

static_assert(std::endian::native == std::endian::little, "safetensors stores little-endian data");

namespace {

// A tensor's values as the bytes the file holds; empty (and never read) for an empty tensor,
// whose data() may be null.
std::string_view bytes_of(const HostTensor& t) {
  if (t.element_count() == 0) return {};
  if (t.dtype == TensorDtype::i64) {
    return {reinterpret_cast<const char*>(t.integers.data()),
            t.integers.size() * sizeof(std::int64_t)};
  }
  return {reinterpret_cast<const char*>(t.values.data()), t.values.size() * sizeof(float)};
}

const char* dtype_name(TensorDtype dtype) {
  return dtype == TensorDtype::i64 ? "I64" : "F32";
}

}  // namespace

void save_safetensors(const std::filesystem::path& path, const Checkpoint& checkpoint) {
  nlohmann::ordered_json header;
  if (!checkpoint.metadata.empty()) header["__metadata__"] = checkpoint.metadata;
  std::size_t offset = 0;
  for (const auto& t : checkpoint.tensors) {
    std::size_t bytes = bytes_of(t).size();
    header[t.name] = {{"dtype", dtype_name(t.dtype)},
                      {"shape", t.dims},
                      {"data_offsets", {offset, offset + bytes}}};
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
    const std::string_view bytes = bytes_of(t);
    if (!bytes.empty()) file.append(bytes.data(), bytes.size());
  }
  write_file_atomically(path, file);
}

namespace {

constexpr std::size_t kMaxCheckpointBytes = std::size_t{1} << 38;  // 256 GiB
constexpr std::size_t kMaxRank = 8;

struct Corrupt {
  const std::string& file;
  UserError operator()(const std::string& problem) const {
    return UserError(fmt::format("{}: not a valid safetensors checkpoint: {}", file, problem));
  }
};

// The header as JSON, refusing a key given twice (nlohmann would keep the last silently).
nlohmann::json parse_header(std::string_view text, const Corrupt& corrupt) {
  std::set<std::string> keys;
  std::string duplicate;
  auto track = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    // The header is {name: {dtype, shape: [...], data_offsets: [...]}}: two levels below the
    // top. Deeper nesting is refused as it is read (100,000 levels overflowed a recursive dump).
    if (depth > 3) throw corrupt("the header nests deeper than a safetensors header does");
    if (depth == 1 && event == nlohmann::json::parse_event_t::key) {
      std::string key = parsed.get<std::string>();
      if (!keys.insert(key).second && duplicate.empty()) duplicate = key;
    }
    return true;
  };
  nlohmann::json header = nlohmann::json::parse(text.begin(), text.end(), track, false);
  if (header.is_discarded() || !header.is_object())
    throw corrupt("the header is not a JSON object");
  if (!duplicate.empty()) throw corrupt(fmt::format("tensor '{}' is given twice", duplicate));
  return header;
}

std::map<std::string, std::string> read_metadata(const nlohmann::json& entry,
                                                 const Corrupt& corrupt) {
  if (!entry.is_object()) throw corrupt("__metadata__ is not a mapping of strings");
  std::map<std::string, std::string> metadata;
  for (const auto& [key, value] : entry.items()) {
    if (!value.is_string()) {
      throw corrupt(fmt::format("__metadata__ '{}' is {}, expected a string", key, value.dump()));
    }
    metadata[key] = value.get<std::string>();
  }
  return metadata;
}

// One tensor's shape: a list of at most 8 whole numbers >= 0 whose product fits in memory.
std::vector<std::int64_t> read_shape(const std::string& name, const nlohmann::json& shape,
                                     const Corrupt& corrupt, std::uint64_t& elements) {
  if (!shape.is_array() || shape.size() > kMaxRank) {
    throw corrupt(fmt::format("tensor '{}': shape {} is not a list of at most {} sizes", name,
                              shape.dump(), kMaxRank));
  }
  std::vector<std::int64_t> dims;
  elements = 1;
  for (const auto& d : shape) {
    if (!d.is_number_unsigned() && !(d.is_number_integer() && d.get<std::int64_t>() >= 0)) {
      throw corrupt(fmt::format("tensor '{}': shape {} holds {}, expected whole numbers >= 0", name,
                                shape.dump(), d.dump()));
    }
    std::uint64_t size = d.get<std::uint64_t>();
    if (size > kMaxCheckpointBytes || __builtin_mul_overflow(elements, size, &elements) ||
        elements > kMaxCheckpointBytes) {
      throw corrupt(fmt::format("tensor '{}': shape {} holds more values than a checkpoint can",
                                name, shape.dump()));
    }
    dims.push_back(static_cast<std::int64_t>(size));
  }
  return dims;
}

struct Extent {
  std::size_t begin = 0, end = 0;
  std::string name;
};

std::vector<std::size_t> read_offsets(const std::string& name, const nlohmann::json& offsets,
                                      const Corrupt& corrupt) {
  if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
      !offsets[1].is_number_unsigned()) {
    throw corrupt(fmt::format("tensor '{}': data_offsets {} is not a pair of whole numbers", name,
                              offsets.dump()));
  }
  return {offsets[0].get<std::size_t>(), offsets[1].get<std::size_t>()};
}

// The tensors' byte ranges must tile the data exactly: no gap, no overlap, nothing after.
void check_extents(std::vector<Extent> extents, std::size_t data_size, const Corrupt& corrupt) {
  std::sort(extents.begin(), extents.end(),
            [](const Extent& a, const Extent& b) { return a.begin < b.begin; });
  std::size_t expected = 0;
  for (const Extent& e : extents) {
    if (e.begin != expected) {
      throw corrupt(
          fmt::format("tensor '{}' starts at data byte {}, expected {} (the tensors "
                      "must cover the data without gaps or overlaps)",
                      e.name, e.begin, expected));
    }
    expected = e.end;
  }
  if (expected != data_size) {
    throw corrupt(fmt::format("the tensors cover {} of the {} data bytes", expected, data_size));
  }
}

// The element type named in a tensor's header entry: F32 or I64.
TensorDtype read_dtype(const std::string& name, const nlohmann::json& dtype,
                       const Corrupt& corrupt) {
  if (dtype == "F32") return TensorDtype::f32;
  if (dtype == "I64") return TensorDtype::i64;
  throw corrupt(
      fmt::format("tensor '{}': dtype {}, expected \"F32\" or \"I64\" (the runner stores float32 "
                  "tensors and int64 counts)",
                  name, dtype.dump()));
}

// Fills the tensor's values (of its dtype) from `elements` values at `data`.
void copy_values(HostTensor& t, std::size_t elements, const char* data) {
  if (t.dtype == TensorDtype::i64) {
    t.integers.resize(elements);
    if (elements) std::memcpy(t.integers.data(), data, elements * sizeof(std::int64_t));
  } else {
    t.values.resize(elements);
    // A 0-element tensor's data() may be null: no copy at all, not one of 0 bytes.
    if (elements) std::memcpy(t.values.data(), data, elements * sizeof(float));
  }
}

}  // namespace

Checkpoint load_safetensors(const std::filesystem::path& path) {
  return parse_safetensors(read_regular_file(path, kMaxCheckpointBytes, "a safetensors checkpoint"),
                           path.string());
}

Checkpoint parse_safetensors(std::string_view file, const std::string& name) {
  const Corrupt corrupt{name};
  if (file.size() < 8) throw corrupt(fmt::format("{} bytes, expected at least 8", file.size()));
  std::uint64_t length;
  std::memcpy(&length, file.data(), 8);
  if (length > file.size() - 8) {
    throw corrupt(fmt::format("header of {} bytes but the file has {} bytes after the length",
                              length, file.size() - 8));
  }
  nlohmann::json header = parse_header(file.substr(8, length), corrupt);
  const std::size_t data_start = 8 + length;
  const std::size_t data_size = file.size() - data_start;

  Checkpoint checkpoint;
  std::vector<Extent> extents;
  for (const auto& [key, entry] : header.items()) {
    if (key == "__metadata__") {
      checkpoint.metadata = read_metadata(entry, corrupt);
      continue;
    }
    if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") ||
        !entry.contains("data_offsets")) {
      throw corrupt(fmt::format("tensor '{}': expected dtype, shape and data_offsets, found {}",
                                key, entry.dump()));
    }
    HostTensor t;
    t.name = key;
    t.dtype = read_dtype(key, entry["dtype"], corrupt);
    const std::size_t element_bytes =
        t.dtype == TensorDtype::i64 ? sizeof(std::int64_t) : sizeof(float);
    std::uint64_t elements = 0;
    t.dims = read_shape(key, entry["shape"], corrupt, elements);
    auto offsets = read_offsets(key, entry["data_offsets"], corrupt);
    if (offsets[1] < offsets[0] || offsets[1] > data_size ||
        offsets[1] - offsets[0] != elements * element_bytes) {
      throw corrupt(
          fmt::format("tensor '{}': data_offsets {} do not fit its shape or the {} data bytes", key,
                      entry["data_offsets"].dump(), data_size));
    }
    extents.push_back({offsets[0], offsets[1], key});
    copy_values(t, static_cast<std::size_t>(elements), file.data() + data_start + offsets[0]);
    checkpoint.tensors.push_back(std::move(t));
  }
  check_extents(std::move(extents), data_size, corrupt);
  checkpoint.sha256 = sha256_hex(file);
  return checkpoint;
}

}  // namespace runner
