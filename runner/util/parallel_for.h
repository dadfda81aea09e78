// Independent pieces of work (a sweep's points) spread over the cores.
#pragma once

#include <cstddef>
#include <functional>

namespace runner {

// Calls body(i) for every i in [0, count), on up to available_cores() threads, the calling one
// included, handing out indices one at a time (points differ in cost). A thread is started only
// for every `min_per_thread` indices: fewer are not worth one. Stops handing out indices once an
// interrupt is requested and then throws Interrupted("interrupted while <doing>"): it never
// returns with work undone. The first exception a body throws is rethrown here, after every
// thread has stopped.
void parallel_for(const char* doing, std::size_t count, std::size_t min_per_thread,
                  const std::function<void(std::size_t)>& body);

}  // namespace runner
