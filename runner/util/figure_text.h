// Figures as people read them, 3-4 significant digits in their unit, shared by `runner compare`'s
// table and the HTML pages.
#pragma once

#include <string>

namespace runner {

// "12,345": an integer's digits in groups of three (the value rounded).
std::string grouped_digits(double value);

// `unit`: share (an accuracy: "90.00 %"), rate ("12,345/s"), seconds ("4.56 ms", "12.3 µs"),
// bytes ("138.1 MiB"), integer ("12,345"), count ("1.2e+03" style, 3 digits), anything else 4
// significant digits
// ("0.3012", a loss). `signed_delta` writes a difference: a sign always, and accuracies in
// percentage points ("+1.25 pts").
std::string figure_text(double value, const std::string& unit, bool signed_delta = false);

}  // namespace runner
