#include "runner/util/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "runner/util/interrupt.h"
#include "runner/util/threads.h"

namespace runner {

void parallel_for(const char* doing, std::size_t count, std::size_t min_per_thread,
                  const std::function<void(std::size_t)>& body) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first_error;
  std::mutex error_mutex;
  auto work = [&] {
    for (std::size_t i = next++; i < count && !failed && !interrupt_requested(); i = next++) {
      try {
        body(i);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!first_error) first_error = std::current_exception();
        failed = true;
      }
    }
  };
  const std::size_t helpers =
      std::min<std::size_t>(static_cast<std::size_t>(available_cores()) - 1,
                            count / std::max<std::size_t>(min_per_thread, 1));
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < helpers; ++t) threads.emplace_back(work);
  work();
  for (auto& thread : threads) thread.join();
  if (first_error) std::rethrow_exception(first_error);
  throw_if_interrupted(doing);
}

}  // namespace runner
