// The config's `device`, parsed once into a value: auto (a GPU when one is usable, else the
// CPU), cpu, or cuda with an optional GPU number (cuda:N). Its text exists only at the edges:
// parsing a config or a command line, and writing the resolved config.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace runner {

struct Device {
  enum class Kind { automatic, cpu, cuda };
  Kind kind = Kind::automatic;
  // cuda:N's N; nullopt for plain `cuda` (the first GPU). An N too long for an int is kept as a
  // number no machine has, so it is refused like any other absent GPU.
  std::optional<int> index;

  // "auto" | "cpu" | "cuda" | "cuda:N"; nullopt for any other text.
  static std::optional<Device> parse(std::string_view text);
  static Device cpu() { return {Kind::cpu, std::nullopt}; }

  // The config's spelling, as parsed ("cuda" stays "cuda": the config's hash depends on it).
  std::string name() const;
  bool is_auto() const { return kind == Kind::automatic; }
  bool is_cpu() const { return kind == Kind::cpu; }
  bool is_cuda() const { return kind == Kind::cuda; }
  // The GPU that cuda or auto would open: N, or the first.
  int gpu_index() const { return index.value_or(0); }
  bool operator==(const Device&) const = default;
};

// What a device may be written as, for error messages: "auto, cpu, cuda or cuda:N".
inline constexpr std::string_view kDeviceChoices = "auto, cpu, cuda or cuda:N";

}  // namespace runner
