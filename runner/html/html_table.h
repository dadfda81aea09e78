// HTML tables; a sortable one sorts by a click on its header (the page's inline script), by
// the cells' numbers where they have them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace runner {

struct TableCell {
  std::string html;      // the cell's content, escaped already
  std::string sort_key;  // what sorting compares: a number's digits, or text ("" = the content)
  bool number = false;   // right-aligned, sorted as a number
  std::string style;     // inline style (a heat map's background)
};

TableCell text_cell(std::string_view text);
// A figure shown as `text`, sorted by `value`; an absent figure (NaN) shows "–" and sorts last.
TableCell number_cell(double value, std::string_view text);

struct HtmlTable {
  std::string id;  // for a link to the table and the page's #sort=ID:COLUMN
  std::vector<std::string> headers;
  std::vector<std::vector<TableCell>> rows;
  bool sortable = false;
};

std::string render_table(const HtmlTable& table);

}  // namespace runner
