// Table cells of the summary files.
#include "runner/sweep/summary_cells.h"

#include <fmt/format.h>

namespace runner {

using nlohmann::json;

std::string csv_cell(const json& value) {
  if (value.is_null()) return "";
  std::string text = value.is_string() ? value.get<std::string>() : value.dump();
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string csv_line(const std::vector<std::string>& cells) {
  return fmt::format("{}\n", fmt::join(cells, ","));
}

std::string number_cell(const json& value, const char* format, double scale) {
  return value.is_number() ? fmt::format(fmt::runtime(format), scale * value.get<double>()) : "";
}

std::string markdown_text(std::string text) {
  text = text.substr(0, text.find('\n'));
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string mean_std_cell(const json& stats, const char* format, double scale, const char* unit) {
  if (!stats.is_object() || !stats["mean"].is_number()) return "";
  std::string mean = number_cell(stats["mean"], format, scale);
  std::string spread =
      stats["std"].is_number() ? " ± " + number_cell(stats["std"], format, scale) : "";
  return fmt::format("{}{}{} ({})", mean, spread, unit, stats["n"].get<int>());
}

}  // namespace runner
