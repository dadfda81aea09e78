// An SVG file rebuilt with only what draws, so a page can show it inline: a sweep's plots/ folder
// is anyone's to write into, and an SVG inside a page could otherwise run script (<script>, on*
// handlers) or fetch (<image>, url(http:...), @import) as the page.
#pragma once

#include <string>
#include <string_view>

namespace runner {

// The file's <svg> element written again from its parse: elements that matplotlib writes (svg, g,
// defs, clipPath, use, path, text, rect, style, ...) with their attributes; any other element is
// dropped with all it holds, any other attribute (on* handlers among them) dropped, and so is a
// link that is not "#id" or a value whose CSS could fetch (url() of anything but "#id", @import,
// escapes, functions other than colours and transforms). "" when the file is not well-formed XML
// with an <svg> root, or not UTF-8.
std::string inert_svg(std::string_view file_text);

}  // namespace runner
