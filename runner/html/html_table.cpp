#include "runner/html/html_table.h"

#include <fmt/format.h>

#include <cmath>

#include "runner/html/html_text.h"

namespace runner {

TableCell text_cell(std::string_view text) {
  return {escape_html(text), "", false, ""};
}

TableCell number_cell(double value, std::string_view text) {
  if (!std::isfinite(value)) return {"–", "", true, ""};
  return {escape_html(text), fmt::format("{:.17g}", value), true, ""};
}

std::string render_table(const HtmlTable& table) {
  std::string out = fmt::format("<table{}{}>\n<thead><tr>",
                                table.id.empty() ? "" : " id=\"" + escape_html(table.id) + "\"",
                                table.sortable ? " class=\"sortable\"" : "");
  for (const auto& header : table.headers) {
    out += table.sortable
               ? fmt::format("<th title=\"sort by {0}\"><button type=\"button\">{0}</button></th>",
                             escape_html(header))
               : fmt::format("<th>{}</th>", escape_html(header));
  }
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : table.rows) {
    out += "<tr>";
    for (const auto& cell : row) {
      std::string attributes;
      if (cell.number) attributes += " class=\"num\"";
      if (!cell.sort_key.empty()) attributes += " data-sort=\"" + cell.sort_key + "\"";
      if (!cell.style.empty()) attributes += " style=\"" + cell.style + "\"";
      out += fmt::format("<td{}>{}</td>", attributes, cell.html);
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table>\n";
}

}  // namespace runner
