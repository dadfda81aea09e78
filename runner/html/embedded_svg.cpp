#include "runner/html/embedded_svg.h"

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

}  // namespace

std::string embedded_svg(std::string_view file_text, std::string_view prefix) {
  const std::size_t start = file_text.find("<svg");
  const std::size_t end = file_text.rfind("</svg>");
  if (start == std::string_view::npos || end == std::string_view::npos || end < start) return "";
  std::string svg(file_text.substr(start, end + 6 - start));
  // The file's metadata (creator, date, licence namespaces) is of no use inside a page.
  if (auto from = svg.find("<metadata"), to = svg.find("</metadata>");
      from != std::string::npos && to != std::string::npos && to > from) {
    svg.erase(from, to + 11 - from);
  }
  // ids, url(#...) references and (xlink:)href="#..." links.
  for (std::string_view before : {" id=\"", "url(#", "href=\"#"})
    svg = prefixed(svg, before, prefix);
  return svg;
}

}  // namespace runner
