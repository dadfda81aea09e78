// Cores and compute threads, from the affinity mask and the environment.
#include "runner/util/threads.h"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <latch>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "runner/util/errors.h"

namespace runner {
namespace {

// Where a thread count came from, for messages.
std::string source_of(int configured) {
  return configured > 0 ? "training.threads"
                        : "OMP_NUM_THREADS (from the environment, as training.threads is 0)";
}

}  // namespace

int available_cores() {
  // Under taskset or a cpuset the machine's core count overstates what the process may use, and
  // that many compute threads would share fewer cores (libgomp counts the mask too).
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (::sched_getaffinity(0, sizeof mask, &mask) == 0) return std::max(1, CPU_COUNT(&mask));
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

namespace {

// The count OMP_NUM_THREADS sets, or 0 where it sets none (unset, 0, not a number, as libgomp
// ignores those).
int omp_num_threads_from_environment() {
  if (const char* env = std::getenv("OMP_NUM_THREADS")) {
    // OpenMP reads the first number of a list such as "4,2" (the outer level).
    long long n = 0;
    const char* end = env + std::strlen(env);
    auto [rest, error] = std::from_chars(env, end, n);
    if (error == std::errc::result_out_of_range ||
        (error == std::errc() && n > kMaxComputeThreads)) {
      throw UserError(fmt::format(
          "OMP_NUM_THREADS={} (from the environment, as training.threads is 0): expected a whole "
          "number from 1 to {}; set training.threads, or a smaller OMP_NUM_THREADS",
          std::string(env, std::min<std::size_t>(std::strlen(env), 40)), kMaxComputeThreads));
    }
    if (error == std::errc() && n > 0) return static_cast<int>(n);
  }
  return 0;
}

}  // namespace

int resolve_threads(int configured) {
  if (configured > 0) return configured;
  if (const int n = omp_num_threads_from_environment(); n > 0) return n;
  return available_cores();
}

bool threads_are_the_default(int configured) {
  return configured <= 0 && omp_num_threads_from_environment() == 0;
}

void check_threads_can_start(int threads, int configured) {
  std::vector<std::thread> started;
  std::latch release(1);
  std::string failure;
  try {
    for (int i = 1; i < threads; ++i) started.emplace_back([&release] { release.wait(); });
  } catch (const std::system_error& error) {
    failure = error.what();
  }
  release.count_down();
  for (auto& thread : started) thread.join();
  if (!failure.empty()) {
    throw UserError(
        fmt::format("{}: {} compute threads, but this process could start only {} "
                    "besides its own ({}); lower it",
                    source_of(configured), threads, started.size(), failure));
  }
}

}  // namespace runner
