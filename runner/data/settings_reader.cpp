// The typed reads every settings reader shares, and the plain-JSON reader.
#include "runner/data/settings_reader.h"

#include <fmt/format.h>

#include <limits>

namespace runner {

std::string SettingsReader::text(const std::string& key, const std::string& fallback) const {
  if (!has(key)) return fallback;
  if (!raw(key).is_string()) wrong(key, "a string");
  return raw(key).get<std::string>();
}

bool SettingsReader::flag(const std::string& key, bool fallback) const {
  if (!has(key)) return fallback;
  if (!raw(key).is_boolean()) wrong(key, "true or false");
  return raw(key).get<bool>();
}

double SettingsReader::number(const std::string& key, double fallback) const {
  if (!has(key)) return fallback;
  if (!raw(key).is_number()) wrong(key, "a number");
  return raw(key).get<double>();
}

std::int64_t SettingsReader::wide(const std::string& key, std::int64_t fallback) const {
  if (!has(key)) return fallback;
  const nlohmann::json& value = raw(key);
  if (!value.is_number_integer() ||
      (value.is_number_unsigned() &&
       value.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max()))) {
    wrong(key, "an integer");
  }
  return value.get<std::int64_t>();
}

int SettingsReader::integer(const std::string& key, int fallback) const {
  const std::int64_t value = wide(key, fallback);
  if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) {
    wrong(key, fmt::format("an integer of at most {}", std::numeric_limits<int>::max()));
  }
  return static_cast<int>(value);
}

JsonSettings::JsonSettings(nlohmann::json object, std::string path)
    : object_(object.is_object() ? std::move(object) : nlohmann::json::object()),
      path_(std::move(path)) {}

bool JsonSettings::has(const std::string& key) const {
  return object_.contains(key);
}

const nlohmann::json& JsonSettings::raw(const std::string& key) const {
  static const nlohmann::json null;
  return has(key) ? object_.at(key) : null;
}

std::unique_ptr<SettingsReader> JsonSettings::mapping(const std::string& key) const {
  return std::make_unique<JsonSettings>(raw(key), where(key).path);
}

SourceLocation JsonSettings::where(const std::string& key) const {
  SourceLocation location;
  location.path = path_.empty() ? key : path_ + "." + key;
  return location;
}

void JsonSettings::wrong(const std::string& key, const std::string& expected) const {
  throw_user_error(where(key), fmt::format("found {}, expected {}", raw(key).dump(), expected));
}

}  // namespace runner
