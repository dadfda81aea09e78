// libFuzzer target: any bytes as a YAML config, through the config path of `runner validate`
// (config_path.h). What counts as a finding:
//   - a crash, a sanitizer report (ASan, UBSan), a timeout or running out of memory (libFuzzer's
//     -timeout and -rss_limit_mb / -malloc_limit_mb): the runner must never do these on any input;
//   - any exception other than runner::UserError escaping, std::bad_alloc and nlohmann::json's
//     exceptions included: the runner would print a raw library message (exit 1), not a clear
//     exit-2 error naming the file and field. The harness aborts on it, printing what escaped.
// A UserError is the expected answer to a bad config and is not a finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <typeinfo>

#include "config_path.h"
#include "runner/util/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    runner::fuzzing::check_config_text(text);
  } catch (const runner::UserError&) {
    // the expected answer to a bad config
  } catch (const std::exception& e) {
    std::fprintf(stderr, "config_fuzzer: finding: %s escaped the config path: %s\n",
                 typeid(e).name(), e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "config_fuzzer: finding: a non-std exception escaped the config path\n");
    std::abort();
  }
  return 0;
}
