// Where each field of a config came from: a line and column of the YAML file, or a --set.
#pragma once

#include <map>
#include <string>

#include "runner/util/errors.h"

namespace runner {

// The origin of one field. Lines and columns are 1-based; 0 when unknown.
struct SourceOrigin {
  int line = 0, column = 0;          // the value
  int key_line = 0, key_column = 0;  // its key, for fields of a mapping
  std::string override_text;         // "--set training.batch_size=64" when set on the command line
  std::string file;                  // the YAML file, when not the map's own (an included file)
  bool replace = false;              // tagged !replace: an include merge replaces, not merges, it
};

class SourceMap {
 public:
  SourceMap() = default;
  // `path_prefix`: where the config sits in its file when it is part of one (a report's
  // `config`): messages then name `config.model.layers[0]`.
  explicit SourceMap(std::string file, std::string path_prefix = "")
      : file_(std::move(file)), path_prefix_(std::move(path_prefix)) {}

  const std::string& file() const { return file_; }
  void add(const std::string& path, const SourceOrigin& origin) { origins_[path] = origin; }
  // Records `path` as coming from `origin` and forgets what was recorded below it.
  void replace_subtree(const std::string& path, const SourceOrigin& origin);
  // Forgets what was recorded for `path` and below it.
  void erase_subtree(const std::string& path);
  // Forgets `path` and below, then copies what `other` recorded there, naming other's file.
  void copy_subtree(const SourceMap& other, const std::string& path);
  // Records what `other` recorded at `from` and below as recorded at `to` and below (an expanded
  // block's layer keeps the lines of the block it came from), naming other's file.
  void copy_subtree_to(const SourceMap& other, const std::string& from, const std::string& to);
  // Messages about `path` or a field below it name `shown` instead (the suffix kept), followed by
  // `(note)`: an expanded layer is named by the block line it came from and its own name.
  void show_as(const std::string& path, std::string shown, std::string note);
  // The origin recorded for `path` itself, or nullptr.
  const SourceOrigin* find(const std::string& path) const;

  // The location of `path` (its key when `at_key` and one is known), from the nearest recorded
  // ancestor when the path itself was never written (a missing key, a default).
  SourceLocation locate(const std::string& path, bool at_key = false) const;
  // `path` as messages name it (with the prefix).
  std::string shown_path(const std::string& path) const;

 private:
  std::string file_;
  std::string path_prefix_;
  std::map<std::string, SourceOrigin> origins_;
  struct ShownAs {
    std::string shown, note;
  };
  std::map<std::string, ShownAs> shown_as_;
};

}  // namespace runner
