// The protobuf wire format, written by hand for the few fixed messages the runner writes
// (TensorBoard's event files, their summaries, the hparams plugin's data; the ONNX export's
// model): a key is (field << 3) | wire type.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

namespace runner::protobuf {

enum WireType : unsigned { kVarint = 0, kFixed64 = 1, kBytes = 2, kFixed32 = 5 };

void varint(std::string& out, std::uint64_t value);
void key(std::string& out, unsigned field, WireType type);

template <typename T>
void little_endian(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));  // x86-64 and aarch64 Linux are little-endian
  out.append(bytes, sizeof(T));
}

// A length-delimited field: a string, bytes or an embedded message.
void bytes_field(std::string& out, unsigned field, const std::string& bytes);
void varint_field(std::string& out, unsigned field, std::uint64_t value);
void double_field(std::string& out, unsigned field, double value);
void float_field(std::string& out, unsigned field, float value);

}  // namespace runner::protobuf
