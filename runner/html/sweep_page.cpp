#include "runner/html/sweep_page.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "runner/config/monitor_spec.h"
#include "runner/html/embedded_svg.h"
#include "runner/html/html_page.h"
#include "runner/html/html_table.h"
#include "runner/html/html_text.h"
#include "runner/html/json_fields.h"
#include "runner/html/run_page.h"
#include "runner/metrics/metric_kind.h"
#include "runner/report/read_report.h"
#include "runner/util/bounded_json.h"
#include "runner/util/figure_text.h"
#include "runner/util/files.h"

namespace runner {
namespace {

using nlohmann::json;

// The folder of a point's report relative to the sweep folder `dir`: <id> for a sweep's point,
// NAME/RUN_ID in a folder of runs (from the report's path); "" when it has no report there or
// the path would lead outside (a forged summary, a symlinked folder).
std::string point_folder(const json& point, const std::filesystem::path& dir) {
  std::error_code ignored;
  const auto root = std::filesystem::weakly_canonical(dir, ignored);
  std::vector<std::filesystem::path> candidates;
  if (auto report = text_field(point, "/report"); !report.empty())
    candidates.push_back(std::filesystem::path(report).parent_path());
  if (auto id = text_field(point, "/id"); !id.empty()) candidates.push_back(dir / id);
  for (const auto& folder : candidates) {
    const auto real = std::filesystem::weakly_canonical(folder, ignored);
    const auto relative = real.lexically_relative(root);
    if (relative.empty() || *relative.begin() == ".." || relative == "." ||
        !std::filesystem::is_regular_file(real / "report.json"))
      continue;
    return relative.generic_string();
  }
  return "";
}

// Each part of a relative path encoded, the slashes between them kept.
std::string url_path(const std::string& relative) {
  std::string out;
  for (const auto& part : std::filesystem::path(relative))
    out += (out.empty() ? "" : "/") + url_segment(part.string());
  return out;
}

bool trained(const json& point) {
  return reported_status(point).ended_as_planned();
}

// A column of the points table: its header, and each point's cell ("" content when absent).
struct PointColumn {
  std::string header;
  std::function<TableCell(const json&)> cell;
};

TableCell figure_cell(const json& point, const char* pointer, const char* unit, double scale = 1) {
  const double v = number_field(point, pointer);
  return number_cell(v * scale, std::isfinite(v) ? figure_text(v * scale, unit) : "");
}

TableCell point_link(const json& point, const std::filesystem::path& dir) {
  const std::string id = text_field(point, "/id");
  TableCell cell = text_cell(id);
  if (const std::string folder = point_folder(point, dir); !folder.empty())
    cell.html = fmt::format("<a href=\"{}/report.html\">{}</a>", url_path(folder), escape_html(id));
  return cell;
}

std::vector<PointColumn> point_columns(const json& summary, const std::filesystem::path& dir) {
  std::vector<PointColumn> columns{
      {"point", [&dir](const json& p) { return point_link(p, dir); }},
      {"status", [](const json& p) { return text_cell(text_field(p, "/status")); }},
      {"device", [](const json& p) { return text_cell(text_field(p, "/device")); }}};
  for (const json& axis : list_field(summary, "/axes")) {
    // A device axis is the device column.
    if (!axis.is_string() || axis == "device") continue;
    const std::string path = axis.get<std::string>();
    columns.push_back({path, [path](const json& p) {
                         const json& values = field(p, "/values");
                         const json v =
                             values.is_object() && values.contains(path) ? values[path] : json();
                         return v.is_number() ? number_cell(v.get<double>(), value_text(v))
                                              : text_cell(value_text(v));
                       }});
  }
  columns.push_back({"seed", [](const json& p) {
                       return number_cell(number_field(p, "/seed"), text_field(p, "/seed"));
                     }});
  columns.push_back(
      {"images/s", [](const json& p) { return figure_cell(p, "/images_per_second", "integer"); }});
  columns.push_back({"step (median)", [](const json& p) {
                       return figure_cell(p, "/step_time_median_seconds", "seconds");
                     }});
  columns.push_back(
      {"test accuracy", [](const json& p) { return figure_cell(p, "/test_accuracy", "share"); }});
  columns.push_back({"validation accuracy",
                     [](const json& p) { return figure_cell(p, "/val_accuracy", "share"); }});
  // The metrics list's figures any point has (val_macro_f1, test_top5_accuracy), a column each.
  std::set<std::string> figures;
  for (const json& point : list_field(summary, "/points")) {
    if (!point.is_object()) continue;
    for (const auto& [key, value] : point.items()) {
      if (value.is_number() && is_set_figure_key(key)) figures.insert(key);
    }
  }
  for (const std::string& key : figures) {
    const std::string pointer = "/" + key;
    columns.push_back(
        {key, [pointer](const json& p) { return figure_cell(p, pointer.c_str(), "share"); }});
  }
  columns.push_back(
      {"test loss", [](const json& p) { return figure_cell(p, "/test_loss", "loss"); }});
  columns.push_back(
      {"training loss", [](const json& p) { return figure_cell(p, "/final_loss", "loss"); }});
  columns.push_back({"epochs", [](const json& p) {
                       return number_cell(number_field(p, "/epochs"), text_field(p, "/epochs"));
                     }});
  columns.push_back(
      {"peak memory", [](const json& p) { return figure_cell(p, "/peak_memory_bytes", "bytes"); }});
  columns.push_back({"GPU utilisation",
                     [](const json& p) { return figure_cell(p, "/gpu_utilisation", "share"); }});
  columns.push_back({"GPU/CPU", [](const json& p) {
                       const double v = number_field(p, "/speedup_over_cpu");
                       return number_cell(v, std::isfinite(v) ? fmt::format("{:.2f}x", v) : "");
                     }});
  return columns;
}

// The points table without the columns that are empty for every point (GPU columns on a CPU).
HtmlTable points_table(const json& summary, const std::filesystem::path& dir) {
  const json& points = list_field(summary, "/points");
  std::vector<PointColumn> columns = point_columns(summary, dir);
  std::vector<std::vector<TableCell>> cells(points.size());
  std::vector<bool> used(columns.size(), false);
  for (std::size_t r = 0; r < points.size(); ++r) {
    for (std::size_t c = 0; c < columns.size(); ++c) {
      cells[r].push_back(columns[c].cell(points[r]));
      used[c] = used[c] || (!cells[r].back().html.empty() && cells[r].back().html != "–");
    }
  }
  HtmlTable table{"points-table", {}, {}, true};
  for (std::size_t c = 0; c < columns.size(); ++c)
    if (used[c]) table.headers.push_back(columns[c].header);
  for (auto& row : cells) {
    std::vector<TableCell> kept;
    for (std::size_t c = 0; c < columns.size(); ++c)
      if (used[c]) kept.push_back(std::move(row[c]));
    table.rows.push_back(std::move(kept));
  }
  return table;
}

std::string plan_section(const json& summary) {
  std::string axes;
  for (const json& axis : list_field(summary, "/axes")) {
    if (!axis.is_string()) continue;
    std::set<std::string> seen;
    std::vector<std::string> values;
    for (const json& p : list_field(summary, "/points")) {
      const json& all = field(p, "/values");
      if (!all.is_object() || !all.contains(axis.get<std::string>())) continue;
      std::string v = value_text(all[axis.get<std::string>()]);
      if (seen.insert(v).second) values.push_back(v);
    }
    axes += fmt::format("<li><code>{}</code>: {}</li>\n", escape_html(axis.get<std::string>()),
                        escape_html(fmt::format("{}", fmt::join(values, ", "))));
  }
  const json& search = field(summary, "/search");
  std::string method = search.is_object()
                           ? fmt::format("{} search by {} ({})", text_field(search, "/method"),
                                         text_field(search, "/metric"), text_field(search, "/mode"))
                           : "grid";
  if (search.is_object() && field(search, "/asha").is_object()) method += ", with ASHA";
  std::string epochs = value_text(field(summary, "/context/epochs"));
  return section(
      "plan", "Plan",
      facts_list({{"mode", escape_html(text_field(summary, "/context/mode"))},
                  {"method", escape_html(method)},
                  {"repeats", escape_html(text_field(summary, "/context/repeats"))},
                  {"epochs", escape_html(epochs)},
                  {"points", escape_html(std::to_string(list_field(summary, "/points").size()))},
                  {"machines", escape_html(value_text(field(summary, "/context/machines")))},
                  {"commits", escape_html(value_text(field(summary, "/context/commits")))},
                  {"started", escape_html(text_field(summary, "/context/started_at"))},
                  {"finished", escape_html(text_field(summary, "/context/finished_at"))}}) +
          (axes.empty() ? "" : "<h3>Axes</h3>\n<ul>\n" + axes + "</ul>\n"));
}

std::string best_section(const json& summary, const std::filesystem::path& dir) {
  const json& search = field(summary, "/search");
  if (!search.is_object()) return "";
  const json& best = field(summary, "/best");
  if (!best.is_object()) {
    return section("best", "Best point",
                   fmt::format("<p>No point that trained to the end reported {}.</p>\n",
                               escape_html(text_field(search, "/metric"))));
  }
  const std::string metric = text_field(search, "/metric");
  const double value = number_field(best, "/value");
  return section(
      "best", "Best point",
      facts_list({{"point", point_link(best, dir).html},
                  {metric, escape_html(figure_text(value, figure_unit(metric)))},
                  {"values", escape_html(value_text(field(best, "/values")))},
                  {"rerun it", "<code>" + escape_html(text_field(best, "/command")) + "</code>"}}));
}

std::string problems_section(const json& summary) {
  std::string items;
  for (const json& p : list_field(summary, "/points")) {
    if (trained(p)) continue;
    items += fmt::format(
        "<li><code>{}</code>: {}{}</li>\n", escape_html(text_field(p, "/id")),
        escape_html(text_field(p, "/status")),
        text_field(p, "/error").empty()
            ? ""
            : " — <span class=\"bad\">" + escape_html(text_field(p, "/error")) + "</span>");
  }
  for (const json& bad : list_field(summary, "/unreadable_reports"))
    items += "<li>unreadable report: " + escape_html(text_field(bad, "/error")) + "</li>\n";
  if (items.empty()) return "";
  return section("problems", "Points that did not train", "<ul>\n" + items + "</ul>\n");
}

// Known plots first, in the order a reader wants them, then any other.
std::vector<std::filesystem::path> plot_files(const std::filesystem::path& dir) {
  const std::vector<std::string> order = {"throughput", "speedup",         "utilisation",
                                          "accuracy",   "val_accuracy",    "loss_epochs",
                                          "loss_steps", "accuracy_epochs", "val_accuracy_epochs",
                                          "search"};
  std::vector<std::filesystem::path> files;
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "plots", ignored)) {
    if (entry.path().extension() == ".svg" && entry.is_regular_file())
      files.push_back(entry.path());
  }
  auto rank = [&](const std::filesystem::path& f) {
    auto it = std::find(order.begin(), order.end(), f.stem().string());
    return std::make_pair(it - order.begin(), f.filename().string());
  };
  std::sort(files.begin(), files.end(),
            [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
  return files;
}

std::string plots_section(const std::filesystem::path& dir) {
  std::string body;
  int n = 0;
  for (const auto& file : plot_files(dir)) {
    std::string svg;
    try {
      svg = embedded_svg(read_file(file), fmt::format("p{}-", n++));
    } catch (const std::exception&) {
      continue;  // a plot that cannot be read is left out, as one not drawn
    }
    if (!svg.empty()) body += "<div class=\"figure\">" + svg + "</div>\n";
  }
  if (body.empty()) {
    body =
        "<p class=\"note\">No plots: <code>runner report</code> draws them with Python's "
        "matplotlib (Debian: <code>apt install python3-matplotlib</code>).</p>\n";
  }
  return section("plots", "Plots", body);
}

std::string groups_section(const json& summary) {
  const json& groups = list_field(summary, "/groups");
  if (groups.empty()) return "";
  HtmlTable table{"groups-table",
                  {"point group", "runs", "images/s", "test accuracy", "validation accuracy"},
                  {},
                  true};
  auto stat = [](const json& g, const char* key, const char* unit) {
    const json& s = field(g, (std::string("/stats/") + key).c_str());
    const double mean = number_field(s, "/mean"), sd = number_field(s, "/std");
    std::string text = std::isfinite(mean) ? figure_text(mean, unit) : "";
    if (std::isfinite(mean) && std::isfinite(sd) && number_field(s, "/n") > 1)
      text += " ± " + figure_text(sd, unit);
    return number_cell(mean, text);
  };
  for (const json& g : groups) {
    table.rows.push_back(
        {text_cell(text_field(g, "/id")),
         number_cell(number_field(g, "/completed"),
                     fmt::format("{}/{}", text_field(g, "/completed"), text_field(g, "/runs"))),
         stat(g, "images_per_second", "integer"), stat(g, "test_accuracy", "share"),
         stat(g, "val_accuracy", "share")});
  }
  return section("groups", "Point groups (mean ± standard deviation over repeats)",
                 "<div class=\"wide\">" + render_table(table) + "</div>");
}

// "Sweep NAME", or "Runs in NAME" for a folder of unrelated runs (results/), which has no plan.
std::string page_title(const json& summary, const std::filesystem::path& dir) {
  const bool sweep = std::filesystem::exists(dir / "sweep.json");
  return (sweep ? "Sweep " : "Runs in ") + text_field(summary, "/sweep");
}

std::string header_html(const json& summary, const std::string& title) {
  const json& points = list_field(summary, "/points");
  std::size_t done = 0;
  for (const json& p : points) done += trained(p);
  std::string out =
      fmt::format("<h1>{}</h1>\n<p>{} points, {} trained · {}</p>\n<nav>", escape_html(title),
                  points.size(), done, escape_html(text_field(summary, "/directory")));
  for (const char* part : {"plan", "best", "points", "plots", "groups", "problems"})
    out += fmt::format("<a href=\"#{0}\">{0}</a>", part);
  return out + "</nav>\n";
}

}  // namespace

std::string url_segment(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '=')
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

std::string sweep_page(const json& summary, const std::filesystem::path& dir) {
  std::string body = plan_section(summary) + best_section(summary, dir) +
                     section("points", "Points",
                             "<p class=\"note\">Click a header to sort; each point links to its "
                             "own page.</p>\n<div class=\"wide\">" +
                                 render_table(points_table(summary, dir)) + "</div>") +
                     plots_section(dir) + groups_section(summary) + problems_section(summary);
  const std::string title = page_title(summary, dir);
  return html_page(title, header_html(summary, title), body);
}

std::filesystem::path write_sweep_pages(const json& summary, const std::filesystem::path& dir) {
  for (const json& point : list_field(summary, "/points")) {
    const std::string folder = point_folder(point, dir);
    if (folder.empty()) continue;
    const auto report_file = dir / folder / "report.json";
    const std::optional<RunRecord> report = read_record_leniently(report_file);
    std::string up;
    for ([[maybe_unused]] const auto& part : std::filesystem::path(folder)) up += "../";
    if (report)
      write_run_page(*report, report_file, {up + "report.html", page_title(summary, dir)});
  }
  const auto path = dir / "report.html";
  write_file_atomically(path, sweep_page(summary, dir));
  return path;
}

}  // namespace runner
