// What a dataset format reads its own dataset.* keys through: the config's typed reads, which
// fall back to a default when a key is absent and name the file, line and field path when a value
// is wrong. The config implements it; the data module only sees this interface.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "runner/util/errors.h"

namespace runner {

class SettingsReader {
 public:
  virtual ~SettingsReader() = default;
  virtual bool has(const std::string& key) const = 0;
  // The value as written (null when absent).
  virtual const nlohmann::json& raw(const std::string& key) const = 0;
  // The mapping under `key` (an empty one when absent).
  virtual std::unique_ptr<SettingsReader> mapping(const std::string& key) const = 0;
  virtual SourceLocation where(const std::string& key) const = 0;
  // A UserError: "file:line:col: path.key: found <value>, expected <expected>".
  [[noreturn]] virtual void wrong(const std::string& key, const std::string& expected) const = 0;

  // Typed reads: the value, `fallback` when absent, a UserError when of another type.
  std::string text(const std::string& key, const std::string& fallback) const;
  bool flag(const std::string& key, bool fallback) const;
  double number(const std::string& key, double fallback) const;
  int integer(const std::string& key, int fallback) const;
  // An integer that may exceed an int's range (a count of bytes).
  std::int64_t wide(const std::string& key, std::int64_t fallback) const;
};

// Settings held as plain JSON (a step built in code, or read back from a resolved config):
// errors name `path` and the key, without a file position.
class JsonSettings : public SettingsReader {
 public:
  JsonSettings(nlohmann::json object, std::string path);
  bool has(const std::string& key) const override;
  const nlohmann::json& raw(const std::string& key) const override;
  std::unique_ptr<SettingsReader> mapping(const std::string& key) const override;
  SourceLocation where(const std::string& key) const override;
  [[noreturn]] void wrong(const std::string& key, const std::string& expected) const override;

 private:
  nlohmann::json object_;
  std::string path_;
};

}  // namespace runner
