// Summing the largest points' host memory against the machine's.
#include "runner/sweep/concurrent_memory.h"

#include <fmt/format.h>

#include <algorithm>

#include "runner/util/console.h"
#include "runner/util/errors.h"

namespace runner {
namespace {

void largest_first(std::vector<PointMemory>& points) {
  std::stable_sort(points.begin(), points.end(),
                   [](const PointMemory& a, const PointMemory& b) { return a.bytes > b.bytes; });
}

}  // namespace

int jobs_that_fit(std::vector<PointMemory> points, int jobs, std::int64_t physical_bytes) {
  if (physical_bytes <= 0) return jobs;
  largest_first(points);
  std::int64_t sum = 0;
  int fit = 0;
  for (const PointMemory& p : points) {
    if (fit == jobs || sum + p.bytes > physical_bytes) break;
    sum += p.bytes;
    ++fit;
  }
  return std::max(1, fit);
}

void check_jobs_fit(std::vector<PointMemory> points, int jobs, std::int64_t physical_bytes) {
  const int fit = jobs_that_fit(points, jobs, physical_bytes);
  if (fit >= std::min<int>(jobs, static_cast<int>(points.size()))) return;
  largest_first(points);
  std::int64_t sum = 0;
  std::vector<std::string> named;
  for (int i = 0; i < jobs && i < static_cast<int>(points.size()); ++i) {
    sum += points[i].bytes;
    named.push_back(
        fmt::format("{} {}", points[i].id, human_bytes(static_cast<double>(points[i].bytes))));
  }
  throw UserError(fmt::format(
      "--jobs {}: the {} largest points would run at once and need about {} of host memory "
      "together ({}), more than this machine's {}; --jobs {} fits",
      jobs, named.size(), human_bytes(static_cast<double>(sum)), fmt::join(named, ", "),
      human_bytes(static_cast<double>(physical_bytes)), fit));
}

}  // namespace runner
