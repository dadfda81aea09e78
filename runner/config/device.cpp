// Parsing and spelling a device (device.h).
#include "runner/config/device.h"

#include <algorithm>
#include <cctype>

namespace runner {

std::optional<Device> Device::parse(std::string_view text) {
  if (text == "auto") return Device{};
  if (text == "cpu") return cpu();
  if (text == "cuda") return Device{Kind::cuda, std::nullopt};
  constexpr std::string_view prefix = "cuda:";
  if (text.substr(0, prefix.size()) != prefix) return std::nullopt;
  const std::string_view digits = text.substr(prefix.size());
  if (digits.empty() ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(c & 0xff); })) {
    return std::nullopt;
  }
  constexpr int kNoSuchGpu = 1 << 30;
  long long index = 0;  // below kNoSuchGpu * 10 + 9 at every step: no overflow
  for (char c : digits) {
    index = index * 10 + (c - '0');
    if (index >= kNoSuchGpu) return Device{Kind::cuda, kNoSuchGpu};
  }
  return Device{Kind::cuda, static_cast<int>(index)};
}

std::string Device::name() const {
  switch (kind) {
    case Kind::automatic:
      return "auto";
    case Kind::cpu:
      return "cpu";
    case Kind::cuda:
      return index ? "cuda:" + std::to_string(*index) : "cuda";
  }
  return "auto";
}

}  // namespace runner
