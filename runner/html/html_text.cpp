#include "runner/html/html_text.h"

#include <fmt/format.h>

#include "runner/util/utf8.h"

namespace runner {
std::string escape_html(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    switch (text[i]) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default: {
        const std::size_t n = utf8_sequence_length(text, i);
        if (n == 0) {
          out += "\xEF\xBF\xBD";  // U+FFFD for a byte that is not UTF-8
          ++i;
        } else {
          out.append(text.substr(i, n));
          i += n;
        }
        continue;
      }
    }
    ++i;
  }
  return out;
}

std::string element(std::string_view tag, std::string_view inner, std::string_view attributes) {
  return fmt::format("<{}{}{}>{}</{}>", tag, attributes.empty() ? "" : " ", attributes, inner, tag);
}

std::string section(std::string_view id, std::string_view title, std::string_view body) {
  return fmt::format("<section id=\"{}\"><h2>{}</h2>\n{}</section>\n", id, escape_html(title),
                     body);
}

std::string collapsible(std::string_view summary, std::string_view body) {
  return fmt::format("<details><summary>{}</summary>\n{}</details>\n", escape_html(summary), body);
}

std::string facts_list(const std::vector<std::pair<std::string, std::string>>& facts) {
  std::string out = "<dl class=\"facts\">\n";
  for (const auto& [term, value] : facts) {
    if (value.empty()) continue;
    out += fmt::format("<dt>{}</dt><dd>{}</dd>\n", escape_html(term), value);
  }
  return out + "</dl>\n";
}

}  // namespace runner
