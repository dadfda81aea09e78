// Safetensors files that are not what the runner writes: each is a UserError naming the file and
// the tensor or field, never a truncated read, a silently kept duplicate or a raw JSON message.
#include "runner/train/safetensors.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <limits>
#include <map>

#include "runner/util/errors.h"
#include "test_support.h"

namespace runner {
namespace {

// A file of `header` (JSON text) followed by `data_bytes` zero bytes.
std::filesystem::path write_raw(const testing::TempDir& dir, const std::string& header,
                                std::size_t data_bytes) {
  std::string file(8, '\0');
  std::uint64_t length = header.size();
  std::memcpy(file.data(), &length, 8);
  file += header + std::string(data_bytes, '\0');
  auto path = dir / "c.safetensors";
  std::ofstream(path, std::ios::binary) << file;
  return path;
}

std::string load_error(const std::filesystem::path& path) {
  try {
    load_safetensors(path);
  } catch (const UserError& error) {
    return error.what();
  }
  return "";
}

struct Corrupt {
  std::string name, header;
  std::size_t data_bytes;
  std::string expected;
};

class CorruptSafetensors : public ::testing::TestWithParam<Corrupt> {};

TEST_P(CorruptSafetensors, IsAUserErrorNamingTheProblem) {
  const Corrupt& c = GetParam();
  testing::TempDir dir;
  std::string message = load_error(write_raw(dir, c.header, c.data_bytes));
  EXPECT_NE(message.find("c.safetensors: not a valid safetensors checkpoint"), std::string::npos)
      << message;
  EXPECT_NE(message.find(c.expected), std::string::npos) << message;
}

// {"a": {"a": ... {} ... }} with `levels` objects.
std::string deeply_nested(int levels) {
  std::string text;
  for (int i = 0; i < levels; ++i) text += "{\"a\": ";
  text += "{}";
  return text + std::string(levels, '}');
}

const char* kW = R"("w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]})";

INSTANTIATE_TEST_SUITE_P(
    Table, CorruptSafetensors,
    ::testing::Values(
        Corrupt{"duplicate_name", std::string("{") + kW + ", " + kW + "}", 8,
                "tensor 'w' is given twice"},
        Corrupt{"fractional_shape",
                R"({"w": {"dtype": "F32", "shape": [2.5], "data_offsets": [0, 8]}})", 8,
                "tensor 'w': shape [2.5] holds 2.5, expected whole numbers >= 0"},
        Corrupt{"negative_shape",
                R"({"w": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}})", 8, "holds -2"},
        Corrupt{
            "element_count_overflow",
            R"({"w": {"dtype": "F32", "shape": [4294967296, 4294967296, 16], "data_offsets": [0, 8]}})",
            8, "holds more values than a checkpoint can"},
        Corrupt{"dtype_not_a_string",
                R"({"w": {"dtype": 5, "shape": [2], "data_offsets": [0, 8]}})", 8,
                "tensor 'w': dtype 5, expected \"F32\""},
        Corrupt{"dtype_f16", R"({"w": {"dtype": "F16", "shape": [2], "data_offsets": [0, 4]}})", 4,
                "tensor 'w': dtype \"F16\", expected \"F32\" or \"I64\""},
        Corrupt{"i64_of_float_size",
                R"({"w": {"dtype": "I64", "shape": [2], "data_offsets": [0, 8]}})", 8,
                "tensor 'w': data_offsets [0,8] do not fit its shape"},
        Corrupt{"metadata_not_a_string",
                std::string(R"({"__metadata__": {"epochs_done": 3}, )") + kW + "}", 8,
                "__metadata__ 'epochs_done' is 3, expected a string"},
        Corrupt{"offsets_not_numbers",
                R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": ["0", 8]}})", 8,
                "data_offsets [\"0\",8] is not a pair of whole numbers"},
        Corrupt{"overlapping_tensors",
                std::string("{") + kW +
                    R"(, "v": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})",
                12, "tensor 'v' starts at data byte 4, expected 8"},
        Corrupt{"gap_after_the_tensors", std::string("{") + kW + "}", 16,
                "the tensors cover 8 of the 16 data bytes"},
        Corrupt{"offsets_beyond_the_data",
                R"({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}})", 8,
                "do not fit its shape or the 8 data bytes"},
        Corrupt{"header_not_an_object", "[1, 2]", 0, "the header is not a JSON object"},
        // Issue 24: 100,000 nested objects overflowed the stack of a recursive dump.
        Corrupt{"header_nested_100000_deep", deeply_nested(100'000), 0,
                "the header nests deeper than a safetensors header does"},
        Corrupt{"shape_nested_one_level_too_deep",
                R"({"w": {"dtype": "F32", "shape": [[2]], "data_offsets": [0, 8]}})", 8,
                "the header nests deeper than a safetensors header does"}),
    [](const auto& info) { return info.param.name; });

TEST(Safetensors, HeaderLengthBeyondTheFileIsRefused) {
  testing::TempDir dir;
  auto path = dir / "c.safetensors";
  std::string file(8, '\xff');  // a length of 2^64 - 1
  std::ofstream(path, std::ios::binary) << file << "{}";
  EXPECT_NE(load_error(path).find("header of 18446744073709551615 bytes"), std::string::npos);
}

TEST(Safetensors, ADeviceOrFolderIsRefusedWithoutReadingForever) {
  EXPECT_NE(load_error("/dev/zero").find("/dev/zero: is not a regular file"), std::string::npos);
  testing::TempDir dir;
  EXPECT_NE(load_error(dir.path()).find("is a folder"), std::string::npos);
}

TEST(Safetensors, WhatIsSavedLoadsBackWithItsHash) {
  testing::TempDir dir;
  Checkpoint saved;
  saved.tensors = {{"a", {2, 1}, {1.f, 2.f}}, {"b", {0}, {}}, {"c", {}, {3.f}}};
  saved.metadata = {{"epochs_done", "2"}};
  save_safetensors(dir / "ok.safetensors", saved);
  Checkpoint loaded = load_safetensors(dir / "ok.safetensors");
  ASSERT_EQ(loaded.tensors.size(), 3u);
  EXPECT_EQ(loaded.tensors[0].values, (std::vector<float>{1.f, 2.f}));
  EXPECT_EQ(loaded.tensors[2].values, std::vector<float>{3.f});
  EXPECT_EQ(loaded.metadata, saved.metadata);
  EXPECT_EQ(loaded.sha256.size(), 64u);
}

TEST(Safetensors, Int64TensorsLoadBackExactlyBesideFloatOnes) {
  testing::TempDir dir;
  Checkpoint saved;
  const std::vector<std::int64_t> integers = {-1, 0, (std::int64_t{1} << 53) + 1,
                                              std::numeric_limits<std::int64_t>::max()};
  // An odd number of floats first: the int64 data starts at a byte offset that is not 8-aligned.
  saved.tensors = {{"f", {3}, {1.f, 2.f, 3.f}},
                   int64_tensor("i", {2, 2}, integers),
                   int64_tensor("empty", {0}, {})};
  save_safetensors(dir / "ok.safetensors", saved);
  Checkpoint loaded = load_safetensors(dir / "ok.safetensors");
  ASSERT_EQ(loaded.tensors.size(), 3u);
  std::map<std::string, const HostTensor*> by_name;  // the header lists them by name
  for (const HostTensor& t : loaded.tensors) by_name[t.name] = &t;
  const HostTensor& f = *by_name.at("f");
  const HostTensor& i = *by_name.at("i");
  const HostTensor& empty = *by_name.at("empty");
  EXPECT_EQ(f.dtype, TensorDtype::f32);
  EXPECT_EQ(f.values, (std::vector<float>{1.f, 2.f, 3.f}));
  EXPECT_EQ(i.dtype, TensorDtype::i64);
  EXPECT_EQ(i.dims, (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(i.integers, integers);
  EXPECT_TRUE(i.values.empty());
  EXPECT_EQ(empty.dtype, TensorDtype::i64);
  EXPECT_TRUE(empty.integers.empty());
}

}  // namespace
}  // namespace runner
