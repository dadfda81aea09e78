// Each point's host memory from its config and graph, as `runner validate` plans a run's.
#include "runner/cli/jobs_memory_check.h"

#include "runner/config/load_config.h"
#include "runner/graph/dataset_geometry.h"
#include "runner/graph/graph.h"
#include "runner/run/host_memory_check.h"
#include "runner/sweep/concurrent_memory.h"
#include "runner/util/process_stats.h"

namespace runner {

void check_jobs_fit_host_memory(const std::vector<PlannedPoint>& plan,
                                const std::vector<std::size_t>& todo,
                                const std::filesystem::path& base_config, int jobs) {
  if (jobs <= 1) return;
  std::vector<PointMemory> points;
  for (std::size_t i : todo) {
    const PlannedPoint& p = plan[i];
    if (!p.valid) continue;  // recorded as invalid at once, never a process
    Experiment experiment = load_experiment(base_config, p.point.overrides);
    DatasetGeometry geometry = dataset_geometry(experiment.dataset);
    Graph graph = build_graph(experiment.model, geometry);
    points.push_back({p.point.id, planned_host_bytes(experiment, graph)});
  }
  check_jobs_fit(points, jobs, physical_memory_bytes());
}

}  // namespace runner
