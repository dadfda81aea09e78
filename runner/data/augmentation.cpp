// The registry of augmentation kinds, listed from the RUNNER_AUGMENTATION lines of
// augmentations/, the draw stream, and the reading helpers the kinds share.
#include "runner/data/augmentation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "runner/util/host_device.h"

namespace runner {

#define RUNNER_REGISTRY_ENTRY(name) RUNNER_AUGMENTATION(name);
#include "runner/data/augmentation_kinds.inc"
#undef RUNNER_REGISTRY_ENTRY

namespace {

std::vector<AugmentationKind> registered_kinds() {
  std::vector<AugmentationKind> kinds;
  auto add = [&kinds](const char* name, AugmentationKind kind) {
    kind.name = name;
    kinds.push_back(std::move(kind));
  };
#define RUNNER_REGISTRY_ENTRY(name) add(#name, augmentation_kind_##name());
#include "runner/data/augmentation_kinds.inc"
#undef RUNNER_REGISTRY_ENTRY
  return kinds;
}

}  // namespace

std::uint64_t DrawStream::bits() {
  const std::uint64_t out = next_;
  next_ = mix64(next_ + 0x9E3779B97F4A7C15ull);
  return out;
}

double DrawStream::uniform() {
  return static_cast<double>(bits() >> 11) * 0x1.0p-53;
}

int DrawStream::below(int n) {
  return augment_math::below(static_cast<std::uint32_t>(bits() >> 32), n);
}

double DrawStream::normal() {
  // Box-Muller; 1 - u keeps the logarithm's argument in (0, 1].
  const double u = 1.0 - uniform(), v = uniform();
  return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * v);
}

const std::vector<AugmentationKind>& augmentation_kinds() {
  static const std::vector<AugmentationKind> kinds = registered_kinds();
  return kinds;
}

const AugmentationKind* find_augmentation_kind(const std::string& name) {
  for (const AugmentationKind& kind : augmentation_kinds()) {
    if (kind.name == name) return &kind;
  }
  return nullptr;
}

AugmentStep make_augment_step(const std::string& kind, const nlohmann::json& settings,
                              const AugmentContext& context) {
  const AugmentationKind* found = find_augmentation_kind(kind);
  if (!found) throw std::invalid_argument("unknown augmentation kind " + kind);
  return {kind, found->read(JsonSettings(settings, "augment." + kind), context)};
}

std::vector<std::string> augmentation_kind_names() {
  std::vector<std::string> names;
  for (const AugmentationKind& kind : augmentation_kinds()) names.push_back(kind.name);
  std::sort(names.begin(), names.end());
  return names;
}

double read_probability(const SettingsReader& settings, const std::string& key, double fallback) {
  if (!settings.has(key)) return fallback;
  const nlohmann::json& value = settings.raw(key);
  if (!value.is_number() || !(value.get<double>() >= 0 && value.get<double>() <= 1)) {
    settings.wrong(key, "a probability from 0 to 1");
  }
  return value.get<double>();
}

std::pair<double, double> read_range(const SettingsReader& settings, const std::string& key,
                                     std::pair<double, double> fallback, double centre,
                                     double lower, double upper) {
  if (!settings.has(key)) return fallback;
  const nlohmann::json& value = settings.raw(key);
  const std::string expected = fmt::format(
      "a number v >= 0 (the range [{} - v, {} + v]) or a pair [low, high] with {} <= "
      "low <= high <= {}",
      centre, centre, lower, upper);
  if (value.is_number()) {
    const double v = value.get<double>();
    if (!(v >= 0) || !std::isfinite(v) || centre + v > upper) settings.wrong(key, expected);
    return {std::max(lower, centre - v), centre + v};
  }
  if (!value.is_array() || value.size() != 2 || !value[0].is_number() || !value[1].is_number()) {
    settings.wrong(key, expected);
  }
  const double low = value[0].get<double>(), high = value[1].get<double>();
  if (!(lower <= low && low <= high && high <= upper)) settings.wrong(key, expected);
  return {low, high};
}

std::pair<double, double> read_pair(const SettingsReader& settings, const std::string& key,
                                    const nlohmann::json& value, double lower, double upper,
                                    const std::string& expected) {
  if (!value.is_array() || value.size() != 2 || !value[0].is_number() || !value[1].is_number()) {
    settings.wrong(key, expected);
  }
  const double low = value[0].get<double>(), high = value[1].get<double>();
  if (!(lower <= low && low <= high && high <= upper)) settings.wrong(key, expected);
  return {low, high};
}

std::pair<double, double> read_positive_pair(const SettingsReader& settings, const std::string& key,
                                             std::pair<double, double> fallback, double upper,
                                             const std::string& meaning) {
  if (!settings.has(key)) return fallback;
  const std::string expected =
      fmt::format("[low, high] with 0 < low <= high <= {}: {}", upper, meaning);
  const auto range = read_pair(settings, key, settings.raw(key), 0, upper, expected);
  if (range.first == 0) settings.wrong(key, expected);
  return range;
}

std::vector<std::uint8_t> read_fill(const SettingsReader& settings, const AugmentContext& context) {
  const int channels = context.image.channels;
  if (!settings.has("fill")) return std::vector<std::uint8_t>(channels, 0);
  const nlohmann::json& value = settings.raw("fill");
  const std::string expected = fmt::format(
      "a byte from 0 to 255, or a list of {} (one per channel) for the pixels the transform "
      "brings in",
      channels);
  const auto byte = [](const nlohmann::json& v) {
    return v.is_number_integer() && v.get<std::int64_t>() >= 0 && v.get<std::int64_t>() <= 255;
  };
  if (byte(value)) return std::vector<std::uint8_t>(channels, value.get<std::uint8_t>());
  if (!value.is_array() || value.size() != static_cast<std::size_t>(channels) ||
      !std::all_of(value.begin(), value.end(), byte)) {
    settings.wrong("fill", expected);
  }
  std::vector<std::uint8_t> fill;
  for (const auto& v : value) fill.push_back(v.get<std::uint8_t>());
  return fill;
}

nlohmann::json fill_json(const std::vector<std::uint8_t>& fill) {
  const bool same = std::all_of(fill.begin(), fill.end(), [&](auto v) { return v == fill[0]; });
  if (same && !fill.empty()) return fill[0];
  return fill;
}

nlohmann::json range_json(std::pair<double, double> range, double identity) {
  if (range.first == identity && range.second == identity) return 0;
  return {range.first, range.second};
}

void require_gray_or_rgb(const AugmentContext& context, const std::string& kind) {
  const int channels = context.image.channels;
  if (channels == 1 || channels == 3) return;
  throw_user_error(context.step,
                   fmt::format("{} takes images of 1 or 3 channels (grey or RGB); these have {}",
                               kind, channels));
}

}  // namespace runner
