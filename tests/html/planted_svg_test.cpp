// A plot file anyone could have written into a sweep's plots/ folder: what reaches the page can
// neither run script nor fetch anything, and what matplotlib writes stays as it was.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "runner/html/embedded_svg.h"
#include "runner/html/html_page.h"
#include "runner/html/sweep_page.h"
#include "runner/util/files.h"
#include "test_support.h"

namespace runner {
namespace {

bool holds(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

// Every way a planted SVG could run script or fetch, beside a path and a text that draw.
const char* const kPlanted =
    "<?xml version=\"1.0\"?>\n"
    "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" "
    "onload=\"document.title='owned'\" width=\"10pt\" height=\"10pt\">\n"
    "<script>document.documentElement.setAttribute('data-planted','1')</script>\n"
    "<script type=\"text/ecmascript\"><![CDATA[ alert(1) ]]></script>\n"
    "<g onclick=\"alert(2)\" onmouseover=\"alert(3)\"><path d=\"M 0 0 L 1 1\" "
    "style=\"fill: url(http://example.com/a.svg#x)\"/></g>\n"
    "<image href=\"http://example.com/pixel.png\" width=\"1\" height=\"1\"/>\n"
    "<image xlink:href=\"https://example.com/pixel.png\"/>\n"
    "<foreignObject><body xmlns=\"http://www.w3.org/1999/xhtml\"><img src=\"http://x/y\"/>"
    "</body></foreignObject>\n"
    "<style>@import url(http://example.com/a.css); rect { fill: url('http://example.com/b') }"
    "</style>\n"
    "<style>g { background: u\\72l(http://example.com/c) }</style>\n"
    "<use href=\"http://example.com/sprite.svg#icon\"/>\n"
    "<use xlink:href=\"&#x68;ttp://example.com/sprite.svg#icon\"/>\n"
    "<a href=\"javascript:alert(4)\"><text>click</text></a>\n"
    "<rect fill=\"url(http://example.com/p)\" mask=\"url(https://example.com/m)\"/>\n"
    "<set attributeName=\"href\" to=\"javascript:alert(5)\"/>\n"
    "<animate attributeName=\"onclick\" to=\"alert(6)\"/>\n"
    "<title><img src=\"x\" onerror=\"alert(7)\"/>plain</title>\n"
    "<text x=\"1\" y=\"2\">&lt;script&gt;alert(8)&lt;/script&gt; stays text</text>\n"
    "</svg>\n";

TEST(PlantedSvg, NothingInAPlotCanRunScriptOrFetch) {
  const std::string svg = embedded_svg(kPlanted, "p0-");
  ASSERT_FALSE(svg.empty());
  for (const char* active : {"<script", "onload", "onclick", "onmouseover", "onerror", "<image",
                             "<foreignObject", "<body", "<img", "@import", "javascript:", "<a ",
                             "<set", "<animate", "u\\72l", "example.com"}) {
    EXPECT_FALSE(holds(svg, active)) << active << " in\n" << svg;
  }
  EXPECT_TRUE(holds(svg, "<path d=\"M 0 0 L 1 1\"")) << svg;  // its bad style alone dropped
  EXPECT_TRUE(holds(svg, "&lt;script&gt;alert(8)&lt;/script&gt; stays text")) << svg;
  EXPECT_TRUE(holds(svg, "<title>plain</title>")) << svg;
}

TEST(PlantedSvg, WhatMatplotlibWritesStays) {
  const std::string file =
      "<?xml version=\"1.0\" encoding=\"utf-8\" standalone=\"no\"?>\n"
      "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\"\n"
      "  \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n"
      "<svg xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"438.4pt\" height=\"309.3pt\" "
      "viewBox=\"0 0 438.4 309.3\" xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\">\n"
      " <defs>\n"
      "  <style type=\"text/css\">*{stroke-linejoin: round; stroke-linecap: butt}</style>\n"
      " </defs>\n"
      " <g id=\"figure_1\">\n"
      "  <path d=\"M 0 309 L 438 309 z\" clip-path=\"url(#p04a9)\" style=\"fill: #ffffff; "
      "stroke-opacity: 0.3\"/>\n"
      "  <defs><path id=\"m1899\" d=\"M 0 0 L 0 3.5\" style=\"stroke: #000000\"/></defs>\n"
      "  <g><use xlink:href=\"#m1899\" x=\"58.3\" y=\"271.7\" style=\"stroke: #000000\"/></g>\n"
      "  <text style=\"font: 10px 'DejaVu Sans', sans-serif; text-anchor: middle\" x=\"58.3\" "
      "y=\"286.3\" transform=\"rotate(-0 58.3 286.3)\">batch_size=16 (mean of 3 runs) &amp; "
      "± µs</text>\n"
      " </g>\n"
      " <defs>\n"
      "  <clipPath id=\"p04a9\">\n"
      "   <rect x=\"40.6\" y=\"22.3\" width=\"390.6\" height=\"249.4\"/>\n"
      "  </clipPath>\n"
      " </defs>\n"
      "</svg>\n";
  const std::string svg = embedded_svg(file, "p1-");
  for (const char* kept :
       {"<svg xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"438.4pt\" height=\"309.3pt\" "
        "viewBox=\"0 0 438.4 309.3\" xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\">",
        "<style type=\"text/css\">*{stroke-linejoin: round; stroke-linecap: butt}</style>",
        "<g id=\"p1-figure_1\">",
        "<path d=\"M 0 309 L 438 309 z\" clip-path=\"url(#p1-p04a9)\" style=\"fill: #ffffff; "
        "stroke-opacity: 0.3\"/>",
        "<use xlink:href=\"#p1-m1899\" x=\"58.3\" y=\"271.7\" style=\"stroke: #000000\"/>",
        "<text style=\"font: 10px 'DejaVu Sans', sans-serif; text-anchor: middle\" x=\"58.3\" "
        "y=\"286.3\" transform=\"rotate(-0 58.3 286.3)\">batch_size=16 (mean of 3 runs) &amp; "
        "± µs</text>",
        "<clipPath id=\"p1-p04a9\">",
        "<rect x=\"40.6\" y=\"22.3\" width=\"390.6\" height=\"249.4\"/>", "</svg>"}) {
    EXPECT_TRUE(holds(svg, kept)) << kept << " not in\n" << svg;
  }
}

TEST(PlantedSvg, AFileThatIsNotWellFormedIsLeftOut) {
  for (const char* bad : {"<svg><g></svg>", "<svg><path d=\"1></svg>", "<svg>&bogus;</svg>",
                          "<svg>&#0;</svg>", "<html><svg></svg></html>", "<svg></svg><svg>",
                          "<!DOCTYPE svg [<!ENTITY x \"y\">]><svg>&x;</svg>", "<svg a='1' a='2'/>",
                          "<svg>\xff</svg>"}) {
    EXPECT_EQ(embedded_svg(bad, "p-"), "") << bad;
  }
}

TEST(PlantedSvg, ASweepPageShowsAPlantedPlotInert) {
  testing::TempDir tmp;
  tmp.write("plots/accuracy.svg", kPlanted);
  const nlohmann::json summary = {{"sweep", "planted"}, {"points", nlohmann::json::array()}};
  const std::string page = sweep_page(summary, tmp.path());
  EXPECT_TRUE(holds(page, "stays text")) << "the plot is on the page";
  for (const char* active : {"data-planted", "onload", "<image", "example.com", "javascript:"})
    EXPECT_FALSE(holds(page, active)) << active;
  // The page's own script, and no other.
  EXPECT_EQ(page.find("<script"), page.rfind("<script"));
}

TEST(HtmlPage, ThePolicyLetsOnlyThePagesOwnScriptRun) {
  const std::string page = html_page("t", "", "");
  const auto policy_at = page.find("Content-Security-Policy\" content=\"");
  ASSERT_NE(policy_at, std::string::npos);
  const std::string policy = page.substr(policy_at, page.find('>', policy_at) - policy_at);
  const auto script_src = policy.find("script-src");
  ASSERT_NE(script_src, std::string::npos) << policy;
  const std::string scripts = policy.substr(script_src, policy.find(';', script_src) - script_src);
  EXPECT_FALSE(holds(scripts, "unsafe-inline")) << policy;
  EXPECT_TRUE(holds(scripts, "'sha256-")) << policy;
}

}  // namespace
}  // namespace runner
