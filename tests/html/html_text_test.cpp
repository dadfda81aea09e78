#include "runner/html/html_text.h"

#include <gtest/gtest.h>

#include "runner/html/embedded_svg.h"
#include "runner/html/html_table.h"
#include "runner/html/sweep_page.h"

namespace runner {
namespace {

TEST(HtmlText, EscapesMarkupAndQuotes) {
  EXPECT_EQ(escape_html("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(escape_html("92.6 % ± µs"), "92.6 % ± µs") << "UTF-8 passes through";
}

TEST(HtmlText, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  EXPECT_EQ(escape_html("a\xff"
                        "b\xc3"),
            "a\xEF\xBF\xBD"
            "b\xEF\xBF\xBD");
  EXPECT_EQ(escape_html("\xe2\x82"), "\xEF\xBF\xBD\xEF\xBF\xBD") << "a cut sequence";
}

TEST(HtmlText, FactsLeaveOutEmptyValues) {
  const std::string html = facts_list({{"seed", "0"}, {"tags", ""}, {"<b>", "x"}});
  EXPECT_NE(html.find("<dt>seed</dt><dd>0</dd>"), std::string::npos);
  EXPECT_EQ(html.find("tags"), std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;"), std::string::npos);
}

TEST(HtmlTable, SortableTablesCarryNumericSortKeys) {
  HtmlTable table{"t", {"name", "rate"}, {}, true};
  table.rows.push_back({text_cell("a<b"), number_cell(12345.5, "12,346")});
  table.rows.push_back({text_cell("c"), number_cell(NAN, "")});
  const std::string html = render_table(table);
  EXPECT_NE(html.find("class=\"sortable\""), std::string::npos);
  EXPECT_NE(html.find("data-sort=\"12345.5\""), std::string::npos);
  EXPECT_NE(html.find("a&lt;b"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"num\">–</td>"), std::string::npos) << "absent: a dash";
}

TEST(EmbeddedSvg, DropsThePrologAndMetadataAndPrefixesIds) {
  const std::string file =
      "<?xml version=\"1.0\"?>\n<!DOCTYPE svg>\n<svg xmlns=\"http://www.w3.org/2000/svg\">"
      "<metadata><rdf:RDF>x</rdf:RDF></metadata><defs><clipPath id=\"c1\"><rect/></clipPath>"
      "<path id=\"m2\" d=\"M0 0\"/></defs><g clip-path=\"url(#c1)\"><use xlink:href=\"#m2\"/>"
      "<use href=\"#m2\"/></g></svg>\n";
  const std::string svg = embedded_svg(file, "p3-");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_EQ(svg.find("<?xml"), std::string::npos);
  EXPECT_EQ(svg.find("metadata"), std::string::npos);
  EXPECT_NE(svg.find("id=\"p3-c1\""), std::string::npos);
  EXPECT_NE(svg.find("url(#p3-c1)"), std::string::npos);
  EXPECT_NE(svg.find("xlink:href=\"#p3-m2\""), std::string::npos);
  EXPECT_NE(svg.find(" href=\"#p3-m2\""), std::string::npos);
  EXPECT_EQ(svg.find("\"#m2\""), std::string::npos);
  EXPECT_EQ(embedded_svg("not an svg", "p-"), "");
}

TEST(EmbeddedSvg, PathsKeepOneDecimalAndTextKeepsItsDigits) {
  const std::string svg = embedded_svg(
      "<svg><path d=\"M 43.78125 166.387429 L 7 8.5 z\"/><text x=\"1.23456\">0.005888</text>"
      "</svg>",
      "p-");
  EXPECT_NE(svg.find("d=\"M 43.7 166.3 L 7 8.5 z\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("x=\"1.23456\">0.005888</text>"), std::string::npos) << svg;
}

TEST(UrlSegment, KeepsPointIdsReadableAndEncodesTheRest) {
  EXPECT_EQ(url_segment("width=0.5__batch_size=16"), "width=0.5__batch_size=16");
  EXPECT_EQ(url_segment("a b/c?#%"), "a%20b%2Fc%3F%23%25");
}

}  // namespace
}  // namespace runner
