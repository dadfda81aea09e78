// libFuzzer target: any bytes as a safetensors checkpoint, through the reader that `eval`,
// `predict`, resuming and model selection use (runner/train/safetensors.h: load_safetensors reads
// the file and hands its bytes to parse_safetensors). A corrupt file must be a UserError; any
// other exception, a crash, a sanitizer report, a leak or a timeout is a finding (fuzz_target.h).
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "fuzz_target.h"
#include "json_mutation.h"
#include "runner/train/safetensors.h"

// Every other mutation changes one value of the header's JSON (json_mutation.h) and rewrites the
// length in front of it; the rest, and inputs without a whole header, get libFuzzer's own.
extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned seed) {
  std::uint64_t length = 0;
  if (size >= 8) std::memcpy(&length, data, 8);
  if (seed % 2 == 0 && size >= 8 && length <= size - 8) {
    const char* bytes = reinterpret_cast<const char*>(data);
    auto header = runner::fuzzing::mutate_json({bytes + 8, length}, seed / 2);
    if (header && 8 + header->size() + (size - 8 - length) <= max_size) {
      std::string file(8, '\0');
      const std::uint64_t new_length = header->size();
      std::memcpy(file.data(), &new_length, 8);
      file.append(*header).append(bytes + 8 + length, size - 8 - length);
      std::memcpy(data, file.data(), file.size());
      return file.size();
    }
  }
  return LLVMFuzzerMutate(data, size, max_size);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  return runner::fuzzing::run_fuzz_input("safetensors_fuzzer", "the safetensors reader", [&] {
    runner::parse_safetensors(bytes, "fuzz.safetensors");
  });
}
