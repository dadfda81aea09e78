#include "runner/sweep/summary_terminal.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "runner/config/monitor_spec.h"
#include "runner/report/read_report.h"
#include "runner/sweep/summary_files.h"
#include "runner/sweep/summary_groups.h"
#include "runner/sweep/summary_header.h"
#include "runner/util/figure_text.h"
#include "runner/util/utf8.h"

namespace runner {
namespace {

using nlohmann::json;

// Rows shown before "... N more": a search of hundreds of trials is for the page, not a screen.
constexpr std::size_t kMaxRows = 40;

struct Column {
  std::string header;
  std::vector<std::string> cells;  // one per row
  bool right = true;               // numbers align right
  int drop_rank = 0;               // dropped first when too wide: the highest rank
};

// Cut to `width` characters, "…" last.
std::string shortened(const std::string& text, std::size_t width) {
  if (utf8_characters(text) <= width) return text;
  std::string out;
  std::size_t n = 0;
  for (std::size_t i = 0; i < text.size() && n + 1 < width; ++i) {
    out += text[i];
    if ((static_cast<unsigned char>(text[i]) & 0xc0) != 0x80) ++n;
    while (i + 1 < text.size() && (static_cast<unsigned char>(text[i + 1]) & 0xc0) == 0x80)
      out += text[++i];
  }
  return out + "…";
}

// "89,397 ± 14,360", "92.61 ± 0.12 %", or the mean alone for one run; "" when no run has it.
std::string stat_text(const json& stats, const char* figure, const std::string& unit) {
  if (!stats.is_object() || !stats.contains(figure)) return "";
  const json& s = stats[figure];
  if (!s.is_object() || !s.value("mean", json()).is_number()) return "";
  const double mean = s["mean"].get<double>();
  const json sd = s.value("std", json());
  const bool spread = sd.is_number() && s.value("n", 0) > 1;
  if (unit == "share") {
    return spread ? fmt::format("{:.2f} ± {:.2f} %", 100 * mean, 100 * sd.get<double>())
                  : fmt::format("{:.2f} %", 100 * mean);
  }
  if (unit == "ratio") return fmt::format("{:.2f}x", mean);
  std::string out = figure_text(mean, unit);
  return spread ? out + " ± " + figure_text(sd.get<double>(), unit) : out;
}

// The last part of an axis path ("lr" for training.optimizer.lr), the whole path where two
// axes would share it.
std::vector<std::string> short_names(const std::vector<std::string>& axes) {
  std::map<std::string, int> count;
  auto last = [](const std::string& path) { return path.substr(path.rfind('.') + 1); };
  for (const auto& a : axes) ++count[last(a)];
  std::vector<std::string> out;
  for (const auto& a : axes) out.push_back(count[last(a)] > 1 ? a : last(a));
  return out;
}

std::vector<Column> group_columns(const json& summary, const json& groups) {
  std::map<std::string, const json*> points;  // id -> row, for the groups' axis values
  for (const json& row : summary["points"]) {
    if (row.is_object() && row.value("id", json()).is_string())
      points[row["id"].get<std::string>()] = &row;
  }
  const std::vector<std::string> axes = summary_axes(summary);
  const std::vector<std::string> names = short_names(axes);
  std::vector<Column> columns;
  for (std::size_t a = 0; a < axes.size(); ++a) columns.push_back({names[a], {}, true, 0});
  Column device{"device", {}, false, 2}, runs{"runs", {}, true, 3};
  Column rate{"images/s", {}, true, 0}, test{"test acc.", {}, true, 1},
      val{"val acc.", {}, true, 4}, loss{"loss", {}, true, 6}, speedup{"GPU/CPU", {}, true, 5};
  bool repeats = false;
  std::set<std::string> devices;
  for (const json& g : groups) {
    const json& ids = g.value("points", json::array());
    const json* first = ids.empty() || !ids[0].is_string() ? nullptr
                        : points.count(ids[0].get<std::string>())
                            ? points[ids[0].get<std::string>()]
                            : nullptr;
    for (std::size_t a = 0; a < axes.size(); ++a) {
      json v = first && (*first).contains("values") && (*first)["values"].is_object() &&
                       (*first)["values"].contains(axes[a])
                   ? (*first)["values"][axes[a]]
                   : json();
      columns[a].cells.push_back(v.is_null()     ? ""
                                 : v.is_string() ? v.get<std::string>()
                                                 : v.dump());
    }
    const std::string d =
        g.value("device", json()).is_string() ? g["device"].get<std::string>() : "";
    devices.insert(d);
    device.cells.push_back(d);
    const int total = g.value("runs", 0), done = g.value("completed", 0);
    repeats = repeats || total > 1 || done != total;
    runs.cells.push_back(fmt::format("{}/{}", done, total));
    const json& stats = g.value("stats", json());
    rate.cells.push_back(stat_text(stats, "images_per_second", "integer"));
    test.cells.push_back(stat_text(stats, "test_accuracy", "share"));
    val.cells.push_back(stat_text(stats, "val_accuracy", "share"));
    loss.cells.push_back(stat_text(stats, "final_loss", "loss"));
    speedup.cells.push_back(stat_text(stats, "speedup_over_cpu", "ratio"));
  }
  // One device: the header says which (summary_axes leaves a device axis to this column).
  if (devices.size() > 1) columns.push_back(device);
  if (repeats) columns.push_back(runs);
  for (Column* c : {&rate, &test, &val, &loss, &speedup}) columns.push_back(std::move(*c));
  // Columns no group has a figure in (GPU/CPU without GPU points, val acc. without a split).
  std::erase_if(columns, [](const Column& c) {
    return std::all_of(c.cells.begin(), c.cells.end(), [](const auto& s) { return s.empty(); });
  });
  return columns;
}

std::size_t table_width(const std::vector<Column>& columns) {
  std::size_t total = 0;
  for (const Column& c : columns) {
    std::size_t w = utf8_characters(c.header);
    for (const auto& cell : c.cells) w = std::max(w, utf8_characters(cell));
    total += w + 2;
  }
  return total;
}

// Drops figures by rank, then shortens the widest cells, until the table fits `width`.
void fit(std::vector<Column>& columns, std::size_t width) {
  while (table_width(columns) > width) {
    auto worst = std::max_element(
        columns.begin(), columns.end(),
        [](const Column& a, const Column& b) { return a.drop_rank < b.drop_rank; });
    if (worst == columns.end() || worst->drop_rank == 0) break;
    columns.erase(worst);
  }
  // Then the widest column, header and cells alike, a character at a time.
  while (table_width(columns) > width) {
    Column* widest = nullptr;
    std::size_t most = 0;
    for (Column& c : columns) {
      std::size_t w = utf8_characters(c.header);
      for (const auto& cell : c.cells) w = std::max(w, utf8_characters(cell));
      if (w > most) {
        most = w;
        widest = &c;
      }
    }
    if (!widest || most <= 6) break;
    widest->header = shortened(widest->header, most - 1);
    for (auto& cell : widest->cells) cell = shortened(cell, most - 1);
  }
}

std::string render(const std::vector<Column>& columns, std::size_t rows) {
  std::vector<std::size_t> widths;
  for (const Column& c : columns) {
    std::size_t w = utf8_characters(c.header);
    for (const auto& cell : c.cells) w = std::max(w, utf8_characters(cell));
    widths.push_back(w);
  }
  auto line = [&](auto cell_of) {
    std::string out;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const std::string text = cell_of(columns[c]);
      const std::string pad(widths[c] - utf8_characters(text), ' ');
      out += (c ? "  " : "") + (columns[c].right ? pad + text : text + pad);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line([](const Column& c) { return c.header; });
  for (std::size_t r = 0; r < rows; ++r) out += line([r](const Column& c) { return c.cells[r]; });
  return out;
}

std::string fitted_line(const std::string& text, std::size_t width) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += shortened(text.substr(start, end - start), width) + "\n";
    start = end + 1;
  }
  return out;
}

}  // namespace

std::string summary_terminal(const json& summary, std::size_t width) {
  std::string out = fitted_line(summary_header(summary), width);
  const json groups =
      summary.contains("groups") ? summary["groups"] : group_rows(summary["points"]);
  if (groups.empty()) return out;
  std::vector<Column> columns = group_columns(summary, groups);
  fit(columns, width);
  const std::size_t rows = std::min(groups.size(), kMaxRows);
  out += "\n" + render(columns, rows);
  if (groups.size() > rows) out += fmt::format("... {} more point groups\n", groups.size() - rows);
  std::size_t not_trained = 0;
  for (const json& row : summary["points"]) {
    not_trained += !reported_status(row).ended_as_planned();
  }
  if (not_trained > 0) {
    out += fmt::format("{} run{} did not complete: the reasons are in summary.md\n", not_trained,
                       not_trained == 1 ? "" : "s");
  }
  if (const json& best = summary.value("best", json()); best.is_object()) {
    const std::string metric = best.value("metric", std::string("?"));
    const json value = best.value("value", json());
    const std::string figure =
        value.is_number() ? figure_text(value.get<double>(), figure_unit(metric)) : value.dump();
    out += fitted_line(
        fmt::format("best point: {} ({} {})", best.value("id", std::string("?")), metric, figure),
        width);
  }
  return out;
}

}  // namespace runner
