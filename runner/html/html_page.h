// A whole self-contained page: styles and the sorting script inline, and a Content Security
// Policy that forbids every fetch (scripts, styles, images, fonts from anywhere but the page
// itself) and every script but the page's own, so the page opens offline, shows the same
// wherever it is sent, and a browser says so in its console should anything in it try to load
// something or run. Pages are written with
// write_file_atomically: one open in a browser is never half-written.
#pragma once

#include <string>
#include <string_view>

namespace runner {

// `title` is text; `header` and `body` are HTML. The page's tables of class "sortable" sort by
// a click on a header; `#sort=TABLE_ID:COLUMN[:desc]` in the address sorts one when it opens.
// refresh_seconds > 0: the browser reloads the page that often (a running run's live page).
std::string html_page(std::string_view title, std::string_view header, std::string_view body,
                      int refresh_seconds = 0);

}  // namespace runner
