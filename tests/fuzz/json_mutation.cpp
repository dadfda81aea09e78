// mutate_json: every value of the document is a candidate, the top level included.
#include "json_mutation.h"

#include <array>
#include <cstring>
#include <random>
#include <vector>

#include "runner/util/bounded_json.h"

namespace runner::fuzzing {

namespace {

using nlohmann::json;

// A value and where it sits (null `parent`: the document itself), to replace or remove it.
struct Place {
  json* parent = nullptr;
  json* value = nullptr;
  std::string key;        // in an object parent
  std::size_t index = 0;  // in an array parent
};

void collect(json& parent, std::vector<Place>& places) {
  if (parent.is_object()) {
    for (auto& [key, value] : parent.items()) {
      places.push_back({&parent, &value, key, 0});
      collect(value, places);
    }
  } else if (parent.is_array()) {
    for (std::size_t i = 0; i < parent.size(); ++i) {
      places.push_back({&parent, &parent[i], "", i});
      collect(parent[i], places);
    }
  }
}

// Values of each kind, at the edges the readers convert at (int, int64, uint64, double).
json replacement(std::minstd_rand& random) {
  static const std::array<json, 18> kValues = {json(nullptr),
                                               json(true),
                                               json(false),
                                               json(0),
                                               json(-1),
                                               json(1.5),
                                               json(1e300),
                                               json(2147483648LL),
                                               json(INT64_MIN),
                                               json(UINT64_MAX),
                                               json(""),
                                               json("completed"),
                                               json("cuda:0"),
                                               json::array(),
                                               json::object(),
                                               json::array({1, "a"}),
                                               json::object({{"a", 1}}),
                                               json::array({json::object()})};
  return kValues[random() % kValues.size()];
}

}  // namespace

std::optional<std::string> mutate_json(std::string_view text, unsigned seed) {
  json doc = parse_bounded_json(text, /*allow_exceptions=*/false);  // bounded: no deep recursion
  if (doc.is_discarded()) return std::nullopt;
  std::vector<Place> places{{nullptr, &doc, "", 0}};
  collect(doc, places);
  std::minstd_rand random(seed);
  const Place& place = places[random() % places.size()];
  if (place.parent && random() % 4 == 0) {  // a missing field or a shorter list
    if (place.parent->is_object()) {
      place.parent->erase(place.key);
    } else {
      place.parent->erase(place.index);
    }
  } else {
    *place.value = replacement(random);
  }
  return doc.dump();
}

std::size_t mutate_json_input(std::uint8_t* data, std::size_t size, std::size_t max_size,
                              unsigned seed) {
  if (seed % 2 == 0) {
    auto text = mutate_json({reinterpret_cast<const char*>(data), size}, seed / 2);
    if (text && text->size() <= max_size) {
      std::memcpy(data, text->data(), text->size());
      return text->size();
    }
  }
  return LLVMFuzzerMutate(data, size, max_size);
}

}  // namespace runner::fuzzing
