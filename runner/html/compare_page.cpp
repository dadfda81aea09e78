#include "runner/html/compare_page.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "runner/html/html_page.h"
#include "runner/html/html_table.h"
#include "runner/html/html_text.h"
#include "runner/html/json_fields.h"
#include "runner/html/line_chart.h"
#include "runner/html/sweep_page.h"
#include "runner/report/compare_reports.h"
#include "runner/util/figure_text.h"

namespace runner {
namespace {

using nlohmann::json;

// A link from the page to a report's run page (or its report.json when it has none).
std::string report_link(const std::filesystem::path& report_file,
                        const std::filesystem::path& page_file) {
  const auto html = report_file.parent_path() / "report.html";
  const auto target = std::filesystem::exists(html) ? html : report_file;
  std::error_code ignored;
  const auto from = std::filesystem::absolute(page_file, ignored).parent_path();
  auto relative = std::filesystem::absolute(target, ignored).lexically_relative(from);
  std::string href;
  for (const auto& part : relative.empty() ? target : relative)
    href +=
        (href.empty() ? "" : "/") + (part == ".." ? std::string("..") : url_segment(part.string()));
  return fmt::format("<a href=\"{}\">{}</a>", href, escape_html(report_file.string()));
}

std::string groups_section(const json& comparison, const std::filesystem::path& page_file) {
  std::string items;
  for (const json& g : list_field(comparison, "/groups")) {
    std::string links;
    for (const json& r : list_field(g, "/reports")) {
      if (r.is_string()) links += "<li>" + report_link(r.get<std::string>(), page_file) + "</li>";
    }
    items += fmt::format("<li><strong>{}</strong>: {} ({}), {} run(s), seeds {}<ul>{}</ul></li>\n",
                         escape_html(text_field(g, "/label")), escape_html(text_field(g, "/name")),
                         escape_html(text_field(g, "/mode")), text_field(g, "/runs"),
                         escape_html(value_text(field(g, "/seeds"))), links);
  }
  return section("groups", "Groups (reports sharing a config up to the seed)",
                 "<ul>\n" + items + "</ul>\n");
}

std::string differences_section(const char* id, const char* title, const json& comparison,
                                const char* pointer) {
  const json& diffs = list_field(comparison, pointer);
  if (diffs.empty()) return section(id, title, "<p>None.</p>\n");
  HtmlTable table{std::string(id) + "-table", {"path"}, {}, false};
  for (const json& g : list_field(comparison, "/groups"))
    table.headers.push_back(text_field(g, "/label"));
  for (const json& d : diffs) {
    std::vector<TableCell> row{text_cell(text_field(d, "/path"))};
    for (const json& v : list_field(d, "/values")) row.push_back(text_cell(value_text(v)));
    table.rows.push_back(std::move(row));
  }
  return section(id, title, "<div class=\"wide\">" + render_table(table) + "</div>");
}

TableCell stats_cell(const json& s, const std::string& unit) {
  return number_cell(number_field(s, "/mean"), stats_text(s, unit));
}

TableCell delta_cell(const json& d, const std::string& unit) {
  TableCell cell = number_cell(number_field(d, "/delta"), delta_text(d, unit));
  const json& within = field(d, "/within_noise");
  if (within.is_boolean()) {
    cell.html += within.get<bool>() ? " <span class=\"note\">within seed noise</span>"
                                    : " <strong>beyond seed noise</strong>";
  }
  return cell;
}

std::string metrics_section(const json& comparison) {
  const json& groups = list_field(comparison, "/groups");
  HtmlTable table{"metrics-table", {"metric"}, {}, true};
  for (const json& g : groups) table.headers.push_back(text_field(g, "/label"));
  for (std::size_t g = 1; g < groups.size(); ++g)
    table.headers.push_back(text_field(groups[g], "/label") + " − A");
  for (const json& m : list_field(comparison, "/metrics")) {
    const std::string unit = text_field(m, "/unit");
    std::vector<TableCell> row{text_cell(text_field(m, "/metric"))};
    for (const json& s : list_field(m, "/groups")) row.push_back(stats_cell(s, unit));
    for (const json& d : list_field(m, "/deltas")) row.push_back(delta_cell(d, unit));
    table.rows.push_back(std::move(row));
  }
  return section("metrics", "Metrics",
                 "<p class=\"note\">Mean ± standard deviation over a group's runs. A delta is "
                 "judged against the seed noise (within it when smaller than twice the larger "
                 "standard deviation) only for the figures of training: timings and memory vary "
                 "from run to run with the machine's load, not with the seed.</p>\n"
                 "<div class=\"wide\">" +
                     render_table(table) + "</div>");
}

// Each report's training loss against steps and validation (else test) accuracy per epoch.
std::string curves_section(const json& comparison, const std::vector<LoadedReport>& reports) {
  LineChart loss{"Training loss", "step", "loss", {}, false, true, "loss"};
  LineChart accuracy{"Accuracy per epoch", "epoch", "accuracy", {}, false, false, "share"};
  std::map<std::string, std::string> labels;  // report path -> its group's label
  for (const json& g : list_field(comparison, "/groups")) {
    for (const json& r : list_field(g, "/reports"))
      if (r.is_string()) labels[r.get<std::string>()] = text_field(g, "/label");
  }
  for (const auto& [path, report] : reports) {
    const std::string seed = report.seed ? std::to_string(*report.seed) : "";
    const std::string name = fmt::format("{} seed {}", labels[path.string()], seed);
    const RecordCurves curves = report.curves.value_or(RecordCurves{});
    ChartSeries train{name, {}, false, false};
    for (const RecordLossPoint& p : curves.train.value_or(std::vector<RecordLossPoint>{}))
      train.points.emplace_back(value_or_nan(p.step), value_or_nan(p.loss));
    if (!train.points.empty()) loss.series.push_back(std::move(train));
    const bool validation = curves.validation && !curves.validation->empty();
    ChartSeries acc{name + (validation ? " (validation)" : " (test)"), {}, true, false};
    for (const RecordEvalPoint& p :
         (validation ? curves.validation : curves.test).value_or(std::vector<RecordEvalPoint>{}))
      acc.points.emplace_back(value_or_nan(p.epoch), value_or_nan(p.accuracy));
    if (!acc.points.empty()) accuracy.series.push_back(std::move(acc));
  }
  const std::string body = svg_line_chart(loss) + svg_line_chart(accuracy);
  return body.empty() ? "" : section("curves", "Curves", body);
}

}  // namespace

std::string compare_page(const json& comparison, const std::vector<LoadedReport>& reports,
                         const std::filesystem::path& page_file) {
  const std::string header = fmt::format(
      "<h1>Comparison</h1>\n<p>{} reports in {} groups</p>\n<nav><a href=\"#groups\">groups</a>"
      "<a href=\"#metrics\">metrics</a><a href=\"#config\">config</a><a "
      "href=\"#environment\">environment</a><a href=\"#curves\">curves</a></nav>\n",
      reports.size(), list_field(comparison, "/groups").size());
  const std::string body =
      groups_section(comparison, page_file) + metrics_section(comparison) +
      differences_section("config", "Config differences", comparison, "/config_differences") +
      differences_section("environment", "Environment differences", comparison,
                          "/environment_differences") +
      curves_section(comparison, reports);
  return html_page("Comparison", header, body);
}

}  // namespace runner
