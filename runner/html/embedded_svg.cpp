#include "runner/html/embedded_svg.h"

#include <algorithm>
#include <cctype>

#include "runner/html/inert_svg.h"

namespace runner {
namespace {

// Every `before` followed by a name gets `prefix` inserted before the name.
std::string prefixed(std::string_view text, std::string_view before, std::string_view prefix) {
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  std::size_t at = 0;
  while (true) {
    const std::size_t hit = text.find(before, at);
    if (hit == std::string_view::npos) break;
    out.append(text.substr(at, hit + before.size() - at));
    out.append(prefix);
    at = hit + before.size();
  }
  out.append(text.substr(at));
  return out;
}

// The numbers of every path's `d="..."` with one decimal (matplotlib writes six: points at
// 72 per inch, so a tenth is finer than any screen), a third of a plot's bytes. Text is left as
// it is: a tick label's digits are what it says.
std::string rounded_paths(const std::string& svg) {
  std::string out;
  out.reserve(svg.size());
  std::size_t at = 0;
  while (true) {
    const std::size_t start = svg.find(" d=\"", at);
    if (start == std::string::npos) break;
    const std::size_t open = start + 4, close = svg.find('"', open);
    if (close == std::string::npos) break;
    out.append(svg, at, open - at);
    for (std::size_t i = open; i < close;) {
      if (svg[i] == '.' && i > open && std::isdigit(static_cast<unsigned char>(svg[i - 1]))) {
        std::size_t end = i + 1;
        while (end < close && std::isdigit(static_cast<unsigned char>(svg[end]))) ++end;
        out.append(svg, i, std::min<std::size_t>(end - i, 2));  // truncated: 0.05 pt at most
        i = end;
      } else {
        out += svg[i++];
      }
    }
    at = close;
  }
  out.append(svg, at, std::string::npos);
  return out;
}

// Without the indentation of each line: whitespace between elements means nothing in SVG, and
// matplotlib keeps a text's characters on the line of its element.
std::string unindented(const std::string& svg) {
  std::string out;
  out.reserve(svg.size());
  bool line_start = false;
  for (char c : svg) {
    if (line_start && c == ' ') continue;
    line_start = c == '\n';
    out += c;
  }
  return out;
}

}  // namespace

std::string embedded_svg(std::string_view file_text, std::string_view prefix) {
  // Without the prolog, the metadata (creator, date, licence namespaces) and anything that
  // could run or fetch.
  std::string svg = inert_svg(file_text);
  if (svg.empty()) return "";
  // ids, url(#...) references and (xlink:)href="#..." links.
  for (std::string_view before : {" id=\"", "url(#", "href=\"#"})
    svg = prefixed(svg, before, prefix);
  return rounded_paths(unindented(svg));
}

}  // namespace runner
