#include "runner/report/protobuf_wire.h"

namespace runner::protobuf {

void varint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out += static_cast<char>((value & 0x7f) | 0x80);
    value >>= 7;
  }
  out += static_cast<char>(value);
}

void key(std::string& out, unsigned field, WireType type) {
  varint(out, (field << 3) | type);
}

void bytes_field(std::string& out, unsigned field, const std::string& bytes) {
  key(out, field, kBytes);
  varint(out, bytes.size());
  out += bytes;
}

void varint_field(std::string& out, unsigned field, std::uint64_t value) {
  key(out, field, kVarint);
  varint(out, value);
}

void double_field(std::string& out, unsigned field, double value) {
  key(out, field, kFixed64);
  little_endian(out, value);
}

void float_field(std::string& out, unsigned field, float value) {
  key(out, field, kFixed32);
  little_endian(out, value);
}

}  // namespace runner::protobuf
