// `runner runs --where EXPR`: a small boolean language over a run's row (run_rows.h), as a user
// writes it on a command line:
//   training.optimizer.lr < 0.01 and status == completed
//   (val_accuracy >= 0.9 or tags.team == "vision") and not device == cpu
// Comparisons == != < <= > >= between a field and a value (a number, a 'quoted' or "quoted"
// string, or a bare word: a field's name when a run has that field, else the word itself);
// `and`, `or`, `not` and parentheses. A comparison with a field the run lacks is false (so is
// its `!=`), as in SQL; numbers compare as numbers, anything else as text.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runner/runs/run_rows.h"

namespace runner {

class RunQuery {
 public:
  // Parses `text`; a UserError that quotes it and points at the problem when it does not parse.
  explicit RunQuery(const std::string& text);
  ~RunQuery();
  RunQuery(RunQuery&&) noexcept;
  RunQuery& operator=(RunQuery&&) noexcept;

  bool matches(const RunRow& row) const;
  // The field names the query compares (and bare words that may name fields), in order.
  std::vector<std::string> fields() const;

  struct Node;

 private:
  std::unique_ptr<Node> root_;
};

}  // namespace runner
