// A structure-aware mutation for fuzz targets whose input holds JSON (a report, a checkpoint's
// header). libFuzzer's byte-level changes seldom keep JSON valid, so a field of another type or
// a missing field, what the readers most often mishandle, is rarely reached from a real file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace runner::fuzzing {

// `text` with one value replaced by one of another kind (null, a boolean, a number at a type's
// edge, a string, an empty or small array or object) or one member or item removed, chosen by
// `seed`; nullopt when `text` is not JSON.
std::optional<std::string> mutate_json(std::string_view text, unsigned seed);

// The body of LLVMFuzzerCustomMutator for an input that is JSON text: mutate_json on every other
// call, else (and where that gives nothing that fits in `max_size`) libFuzzer's own mutation.
std::size_t mutate_json_input(std::uint8_t* data, std::size_t size, std::size_t max_size,
                              unsigned seed);

}  // namespace runner::fuzzing

// libFuzzer's own mutation (any bytes), for the inputs mutate_json leaves alone.
extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);
