// A plot script's SVG file inside a page: only what draws (inert_svg), and its ids made unique to
// it, since several plots share one document (matplotlib names its clip paths and markers alike).
#pragma once

#include <string>
#include <string_view>

namespace runner {

// The <svg> element of `file_text` as inert_svg writes it, with every id and reference to one
// prefixed by `prefix` and its paths' coordinates to a tenth of a point; "" when the text is not
// an SVG file (or not well-formed).
std::string embedded_svg(std::string_view file_text, std::string_view prefix);

}  // namespace runner
