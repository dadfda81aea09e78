// Lenient reads of a report's fields for the pages: a report of an older runner, or one that a
// run killed midway left short, lacks some; the page leaves those parts out instead of failing.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace runner {

// The value at a JSON pointer ("/metrics/test_accuracy"), or null when any step is missing or
// of another type.
const nlohmann::json& field(const nlohmann::json& value, const char* pointer);

// The array there, or an empty one.
const nlohmann::json& list_field(const nlohmann::json& value, const char* pointer);

// The number there, or NaN.
double number_field(const nlohmann::json& value, const char* pointer);

// The text there: a string as it is, a number or boolean as JSON writes it, else "".
std::string text_field(const nlohmann::json& value, const char* pointer);

// A JSON value as a cell shows it: strings unquoted, numbers as %.6g, arrays as "a, b", objects
// as compact JSON.
std::string value_text(const nlohmann::json& value);

}  // namespace runner
