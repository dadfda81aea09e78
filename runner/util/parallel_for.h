// Independent pieces of work (a sweep's points) spread over the cores.
#pragma once

#include <cstddef>
#include <functional>

namespace runner {

// Calls body(i) for every i in [0, count), on up to available_cores() threads, the calling one
// included, handing out indices one at a time (points differ in cost). A thread is started only
// for every `min_per_thread` indices: fewer are not worth one. Stops handing out indices once an
// interrupt is requested (the caller says so with throw_if_interrupted). The first exception a
// body throws is rethrown here, after every thread has stopped.
void parallel_for(std::size_t count, std::size_t min_per_thread,
                  const std::function<void(std::size_t)>& body);

}  // namespace runner
