// libFuzzer target: any bytes as a YAML config, through the config path of `runner validate`
// (config_path.h). A finding: a crash, a sanitizer report, a timeout, running out of memory
// (libFuzzer's -timeout and -rss_limit_mb), or any exception other than runner::UserError
// escaping, std::bad_alloc and nlohmann::json's exceptions included (fuzz_target.h).
#include <cstdint>
#include <string>

#include "config_path.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  return runner::fuzzing::run_fuzz_input("config_fuzzer", "the config path",
                                         [&] { runner::fuzzing::check_config_text(text); });
}
