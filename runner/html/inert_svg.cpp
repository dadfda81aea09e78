// A small XML reader (elements, attributes, text, comments, CDATA, the prolog) that writes back
// only allow-listed elements and attributes, their values decoded, checked and escaped again.
// What it does not understand makes the file malformed: nothing is passed on half-read.
#include "runner/html/inert_svg.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "runner/util/utf8.h"

namespace runner {
namespace {

// What matplotlib writes, and other elements that only draw: no <script>, <foreignObject>,
// <image>, <a>, <iframe>, nor <set>/<animate> (which could change an attribute to a script).
constexpr std::string_view kElements =
    " svg g defs clipPath mask pattern symbol use path rect circle ellipse line polyline polygon "
    "text tspan style title desc linearGradient radialGradient stop ";

// Geometry and presentation; href, xlink:href and xmlns are checked on their own.
constexpr std::string_view kAttributes =
    " id class d x y x1 y1 x2 y2 cx cy r rx ry fx fy dx dy width height viewBox "
    "preserveAspectRatio points transform style type version xml:space clip-path clip-rule "
    "clipPathUnits mask maskUnits maskContentUnits patternUnits patternContentUnits "
    "patternTransform gradientUnits gradientTransform spreadMethod offset stop-color "
    "stop-opacity fill fill-opacity fill-rule stroke stroke-width stroke-opacity stroke-linecap "
    "stroke-linejoin stroke-miterlimit stroke-dasharray stroke-dashoffset opacity color display "
    "visibility overflow font-family font-size font-style font-weight font-variant font-stretch "
    "text-anchor dominant-baseline alignment-baseline baseline-shift letter-spacing "
    "word-spacing text-decoration writing-mode textLength lengthAdjust rotate vector-effect "
    "shape-rendering text-rendering ";

// CSS functions that compute a value and fetch nothing (url() is checked on its own).
constexpr std::string_view kCssFunctions =
    " rgb rgba hsl hsla scale translate rotate matrix skewx skewy ";

// An HTML parser reads markup inside <title> and <desc> as HTML, and <style> holds CSS.
bool holds_text_only(std::string_view element) {
  return element == "title" || element == "desc" || element == "style";
}

constexpr int kMaxDepth = 64;  // matplotlib nests a dozen

struct Malformed {};

// Lists hold names between spaces, so a name is found whole.
bool listed(std::string_view list, std::string_view name) {
  return !name.empty() && name.find(' ') == std::string_view::npos &&
         list.find(" " + std::string(name) + " ") != std::string_view::npos;
}

bool is_name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':';
}

bool is_name_char(char c) {
  return is_name_start(c) || std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-';
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

void append_utf8(std::string& out, unsigned long code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

// A character reference's code point (`digits` after "&#"), which XML allows in a document.
unsigned long code_point(std::string_view digits) {
  const bool hex = !digits.empty() && digits[0] == 'x';
  if (hex) digits.remove_prefix(1);
  if (digits.empty() || digits.size() > 8) throw Malformed{};
  unsigned long code = 0;
  for (char c : digits) {
    const int digit = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                      : hex && std::isxdigit(static_cast<unsigned char>(c))
                          ? std::tolower(static_cast<unsigned char>(c)) - 'a' + 10
                          : -1;
    if (digit < 0) throw Malformed{};
    code = code * (hex ? 16 : 10) + static_cast<unsigned long>(digit);
  }
  const bool allowed = code == 0x9 || code == 0xA || code == 0xD ||
                       (code >= 0x20 && code <= 0xD7FF) || (code >= 0xE000 && code <= 0xFFFD) ||
                       (code >= 0x10000 && code <= 0x10FFFF);
  if (!allowed) throw Malformed{};
  return code;
}

// `raw` with its entity and character references replaced: XML's five, and numbers.
std::string decoded(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (std::size_t at = 0; at < raw.size();) {
    if (raw[at] != '&') {
      out += raw[at++];
      continue;
    }
    const std::size_t end = raw.find(';', at);
    if (end == std::string_view::npos) throw Malformed{};
    const std::string_view name = raw.substr(at + 1, end - at - 1);
    at = end + 1;
    if (name == "lt")
      out += '<';
    else if (name == "gt")
      out += '>';
    else if (name == "amp")
      out += '&';
    else if (name == "quot")
      out += '"';
    else if (name == "apos")
      out += '\'';
    else if (name.size() > 1 && name[0] == '#')
      append_utf8(out, code_point(name.substr(1)));
    else
      throw Malformed{};  // a DTD's entity, which we do not read
  }
  return out;
}

std::string escaped(std::string_view text, bool attribute) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '"' && attribute)
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

// "#id" and nothing else: a link inside the drawing, never to another document.
bool is_local_link(std::string_view value) {
  return value.size() > 1 && value[0] == '#' &&
         std::all_of(value.begin() + 1, value.end(), [](char c) { return is_name_char(c); });
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

// CSS (a <style>, a style="..." or a presentation attribute such as fill) that cannot fetch:
// no escapes (they spell any word), no at-rules (@import, @font-face), and only functions that
// compute, url() only of "#id".
bool is_inert_css(std::string_view css) {
  if (css.find_first_of("\\@<") != std::string_view::npos) return false;
  for (std::size_t open = css.find('('); open != std::string_view::npos;
       open = css.find('(', open + 1)) {
    std::size_t start = open;
    while (start > 0 &&
           (std::isalnum(static_cast<unsigned char>(css[start - 1])) || css[start - 1] == '-'))
      --start;
    std::string function(css.substr(start, open - start));
    for (char& c : function) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (function == "url") {
      const std::size_t close = css.find(')', open);
      if (close == std::string_view::npos ||
          !is_local_link(trimmed(css.substr(open + 1, close - open - 1))))
        return false;
    } else if (!listed(kCssFunctions, function)) {
      return false;
    }
  }
  return true;
}

bool keeps_attribute(std::string_view name, std::string_view value) {
  if (name == "href" || name == "xlink:href") return is_local_link(value);
  if (name == "xmlns") return value == "http://www.w3.org/2000/svg";
  if (name == "xmlns:xlink") return value == "http://www.w3.org/1999/xlink";
  return listed(kAttributes, name) && is_inert_css(value);
}

class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  std::string document() {
    skip_misc(true);
    std::string out;
    element(out, true, 0);
    skip_misc(false);
    if (at_ != text_.size()) throw Malformed{};  // a second root, or text after it
    return out;
  }

 private:
  bool starts(std::string_view what) const { return text_.substr(at_, what.size()) == what; }

  void expect(std::string_view what) {
    if (!starts(what)) throw Malformed{};
    at_ += what.size();
  }

  // Whether any space was skipped.
  bool skip_spaces() {
    const std::size_t from = at_;
    while (at_ < text_.size() && is_space(text_[at_])) ++at_;
    return at_ > from;
  }

  void skip_past(std::string_view end) {
    const std::size_t hit = text_.find(end, at_);
    if (hit == std::string_view::npos) throw Malformed{};
    at_ = hit + end.size();
  }

  std::string_view name() {
    const std::size_t from = at_;
    if (at_ >= text_.size() || !is_name_start(text_[at_])) throw Malformed{};
    while (at_ < text_.size() && is_name_char(text_[at_])) ++at_;
    return text_.substr(from, at_ - from);
  }

  // Spaces, comments and processing instructions; a DOCTYPE too before the root, without an
  // internal subset (whose entities this reader does not expand).
  void skip_misc(bool prolog) {
    while (true) {
      skip_spaces();
      if (starts("<!--")) {
        skip_past("-->");
      } else if (starts("<?")) {
        skip_past("?>");
      } else if (prolog && starts("<!DOCTYPE")) {
        const std::size_t end = text_.find('>', at_);
        if (end == std::string_view::npos ||
            text_.substr(at_, end - at_).find('[') != std::string_view::npos)
          throw Malformed{};
        at_ = end + 1;
      } else {
        return;
      }
    }
  }

  // The attributes up to '>' or "/>", the kept ones appended to `start`; true for "/>".
  bool attributes(std::string& start, bool keep) {
    std::vector<std::string_view> seen;
    while (true) {
      const bool spaced = skip_spaces();
      if (starts("/>")) {
        at_ += 2;
        return true;
      }
      if (starts(">")) {
        ++at_;
        return false;
      }
      if (!spaced) throw Malformed{};
      const std::string_view attribute = name();
      if (std::find(seen.begin(), seen.end(), attribute) != seen.end()) throw Malformed{};
      seen.push_back(attribute);
      skip_spaces();
      expect("=");
      skip_spaces();
      if (at_ >= text_.size() || (text_[at_] != '"' && text_[at_] != '\'')) throw Malformed{};
      const char quote = text_[at_++];
      const std::size_t end = text_.find(quote, at_);
      if (end == std::string_view::npos) throw Malformed{};
      const std::string_view raw = text_.substr(at_, end - at_);
      at_ = end + 1;
      if (raw.find('<') != std::string_view::npos) throw Malformed{};
      const std::string value = decoded(raw);
      if (keep && keeps_attribute(attribute, value))
        start += " " + std::string(attribute) + "=\"" + escaped(value, true) + "\"";
    }
  }

  // The element at '<', appended to `out` when `keep` and it is allowed; else read and dropped
  // with all it holds.
  void element(std::string& out, bool keep, int depth) {
    expect("<");
    const std::string_view tag = name();
    if ((depth == 0 && tag != "svg") || depth > kMaxDepth) throw Malformed{};
    const bool kept = keep && listed(kElements, tag);
    std::string start = "<" + std::string(tag);
    if (attributes(start, kept)) {
      if (kept) out += start + "/>";
      return;
    }
    std::string inner, text;  // the content as written back, and its text alone
    while (true) {
      if (at_ >= text_.size()) throw Malformed{};
      if (starts("</")) {
        at_ += 2;
        if (name() != tag) throw Malformed{};
        skip_spaces();
        expect(">");
        break;
      }
      if (starts("<!--")) {
        skip_past("-->");
      } else if (starts("<?")) {
        skip_past("?>");
      } else if (starts("<![CDATA[")) {
        at_ += 9;
        const std::size_t end = text_.find("]]>", at_);
        if (end == std::string_view::npos) throw Malformed{};
        const std::string_view data = text_.substr(at_, end - at_);
        text += data;
        inner += escaped(data, false);
        at_ = end + 3;
      } else if (starts("<!")) {
        throw Malformed{};
      } else if (starts("<")) {
        element(inner, kept && !holds_text_only(tag), depth + 1);
      } else {
        const std::size_t end = std::min(text_.find('<', at_), text_.size());
        const std::string data = decoded(text_.substr(at_, end - at_));
        text += data;
        inner += escaped(data, false);
        at_ = end;
      }
    }
    if (!kept || (tag == "style" && !is_inert_css(text))) return;
    out += start + ">" + inner + "</" + std::string(tag) + ">";
  }

  std::string_view text_;
  std::size_t at_ = 0;
};

}  // namespace

std::string inert_svg(std::string_view file_text) {
  if (first_invalid_utf8(file_text)) return "";
  try {
    return Reader(file_text).document();
  } catch (const Malformed&) {
    return "";
  }
}

}  // namespace runner
