// Text into HTML: escaping, and the few elements every page builds from.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace runner {

// `text` with & < > " ' as entities; bytes that are not UTF-8 become U+FFFD, so a report's odd
// path cannot break the page's encoding.
std::string escape_html(std::string_view text);

// <tag attributes>inner</tag>; `inner` is HTML already (escape text first).
std::string element(std::string_view tag, std::string_view inner, std::string_view attributes = "");

// A section of a page: <section id=ID><h2>TITLE</h2>BODY</section> (the title is text).
std::string section(std::string_view id, std::string_view title, std::string_view body);

// A collapsed block: <details><summary>SUMMARY</summary>BODY</details>.
std::string collapsible(std::string_view summary, std::string_view body);

// A definition list of (term, HTML value) pairs, pairs with an empty value left out.
std::string facts_list(const std::vector<std::pair<std::string, std::string>>& facts);

}  // namespace runner
