#include "runner/html/html_page.h"

#include <fmt/format.h>

#include "runner/html/html_text.h"
#include "runner/util/digest.h"

namespace runner {
namespace {

constexpr std::string_view kStyle = R"css(
:root { color-scheme: light; --muted: #555; --line: #d8d8d8; --head: #f3f4f6; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0 auto;
  max-width: 1120px; padding: 0 20px 40px; color: #1b1b1b; }
header { border-bottom: 2px solid #1f77b4; margin-bottom: 8px; padding: 14px 0 8px; }
header h1 { font-size: 22px; margin: 0 0 4px; }
header p { margin: 2px 0; color: var(--muted); }
h2 { font-size: 17px; margin: 26px 0 8px; border-bottom: 1px solid var(--line); }
h3 { font-size: 14px; margin: 16px 0 6px; }
nav a { margin-right: 12px; }
a { color: #0b5cad; }
table { border-collapse: collapse; margin: 6px 0 10px; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: var(--head); }
td.num { text-align: right; white-space: nowrap; }
.wide { overflow-x: auto; }
table.sortable th button { all: unset; cursor: pointer; }
table.sortable th[aria-sort=ascending] button::after { content: " ▲"; }
table.sortable th[aria-sort=descending] button::after { content: " ▼"; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 6px 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
pre, code { font: 12px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; }
pre { background: #f7f7f7; border: 1px solid var(--line); padding: 8px; overflow-x: auto; }
.status-completed { color: #1a7f37; } .status-failed, .status-diverged { color: #c0392b; }
.note { color: var(--muted); }
.bad { color: #c0392b; }
svg.chart { width: 100%; max-width: 760px; height: auto; display: block; margin: 6px 0 12px; }
svg.chart text { font: 11px system-ui, sans-serif; fill: #222; }
svg.chart .title { font-size: 13px; font-weight: 600; }
svg.chart .grid { stroke: #e6e6e6; }
svg.chart .frame { fill: none; stroke: #888; }
.figure svg { max-width: 760px; width: 100%; height: auto; }
.heat td { text-align: right; min-width: 2.2em; }
@media print { nav { display: none; } a { color: inherit; } body { max-width: none; }
  details > *:not(summary) { display: block; } }
)css";

constexpr std::string_view kScript = R"js(
(function () {
  function key(cell) {
    var k = cell.getAttribute('data-sort');
    return k !== null ? k : cell.textContent.trim();
  }
  function numeric(rows, col) {
    return rows.every(function (r) {
      var c = r.cells[col];
      return !c || c.hasAttribute('data-sort') || c.textContent.trim() === '' ||
        c.textContent.trim() === '\u2013';
    });
  }
  function sortTable(table, col, descending) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var asNumbers = numeric(rows, col);
    rows.sort(function (a, b) {
      var ka = a.cells[col] ? key(a.cells[col]) : '', kb = b.cells[col] ? key(b.cells[col]) : '';
      if (asNumbers) {
        var na = parseFloat(ka), nb = parseFloat(kb);
        if (isNaN(na) || isNaN(nb)) return isNaN(na) - isNaN(nb);  // missing figures last
        return descending ? nb - na : na - nb;
      }
      var order = ka.localeCompare(kb, undefined, { numeric: true });
      return descending ? -order : order;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    var headers = table.tHead.rows[0].cells;
    for (var i = 0; i < headers.length; i++) {
      headers[i].setAttribute('aria-sort', i === col ? (descending ? 'descending' : 'ascending')
                                                     : 'none');
    }
  }
  document.querySelectorAll('table.sortable').forEach(function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      th.addEventListener('click', function () {
        sortTable(table, i, th.getAttribute('aria-sort') === 'ascending');
      });
    });
  });
  var asked = /^#sort=([^:]+):(\d+)(:desc)?$/.exec(decodeURIComponent(location.hash));
  if (asked) {
    var table = document.getElementById(asked[1]);
    if (table && table.classList.contains('sortable')) sortTable(table, +asked[2], !!asked[3]);
  }
  document.documentElement.setAttribute('data-ready', '1');
})();
)js";

// Nothing fetched, and no script but the page's own, named by its hash: markup that got into a
// page (a plot's SVG, text that escaped the escaping) cannot run, on* handlers included.
const std::string& policy() {
  static const std::string policy = fmt::format(
      "default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{}'; img-src data:; "
      "base-uri 'none'; form-action 'none'",
      sha256_base64(kScript));
  return policy;
}

}  // namespace

std::string html_page(std::string_view title, std::string_view header, std::string_view body,
                      int refresh_seconds) {
  const std::string refresh =
      refresh_seconds > 0
          ? fmt::format("<meta http-equiv=\"refresh\" content=\"{}\">\n", refresh_seconds)
          : "";
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n{}"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta name=\"generator\" content=\"runner\">\n<title>{}</title>\n<style>{}</style>\n"
      "</head>\n<body>\n<header>{}</header>\n<main>\n{}</main>\n<script>{}</script>\n"
      "</body>\n</html>\n",
      refresh, policy(), escape_html(title), kStyle, header, body, kScript);
}

}  // namespace runner
