// Whether `--jobs N` points running at once fit in the host's memory: at worst the N largest
// run together.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace runner {

struct PointMemory {
  std::string id;
  std::int64_t bytes = 0;  // the host memory the point's process needs
};

// The most points that fit at once (the largest first; at least 1, since a point too large
// alone is refused by its own memory plan). `physical_bytes` <= 0: unknown, `jobs` fit.
int jobs_that_fit(std::vector<PointMemory> points, int jobs, std::int64_t physical_bytes);

// A UserError when the `jobs` largest points together exceed `physical_bytes`: what they need,
// which points, and the --jobs that fits.
void check_jobs_fit(std::vector<PointMemory> points, int jobs, std::int64_t physical_bytes);

}  // namespace runner
