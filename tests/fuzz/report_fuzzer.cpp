// libFuzzer target: any bytes as a report.json, through every reader of reports (report_path.h);
// half the mutations change one value of the JSON (json_mutation.h).
// A file that is not a report must be a UserError (or a "not a report" note in a summary); any
// other exception, a crash, a sanitizer report, a leak or a timeout is a finding (fuzz_target.h).
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "fuzz_target.h"
#include "json_mutation.h"
#include "report_path.h"

namespace {

// The folder the inputs are written to: one of this process's own (fuzzers may run side by
// side), removed when the fuzzer exits (not after a finding, which aborts).
class ScratchFolder {
 public:
  ScratchFolder() {
    std::string name = (std::filesystem::temp_directory_path() / "report_fuzzer.XXXXXX").string();
    if (!::mkdtemp(name.data())) std::abort();
    path_ = name;
  }
  ~ScratchFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned seed) {
  return runner::fuzzing::mutate_json_input(data, size, max_size, seed);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ScratchFolder folder;
  const std::string text(reinterpret_cast<const char*>(data), size);
  return runner::fuzzing::run_fuzz_input("report_fuzzer", "the report readers", [&] {
    runner::fuzzing::check_report_text(text, folder.path());
  });
}
