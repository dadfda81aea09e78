// check_config_text: the steps of Session::prepare after the file is read, in the same order.
#include "config_path.h"

#include <cstdint>

#include "runner/config/load_config.h"
#include "runner/config/yaml_to_json.h"
#include "runner/data/dataset_size.h"
#include "runner/graph/dataset_geometry.h"
#include "runner/graph/graph.h"
#include "runner/graph/memory_estimate.h"
#include "runner/graph/training_batches.h"
#include "runner/run/host_memory_check.h"

namespace runner::fuzzing {

namespace {

// A fixed machine size, so that whether the host-memory check passes does not depend on where
// the fuzzer runs (16 GiB: both outcomes are reachable).
constexpr std::int64_t kPhysicalBytes = std::int64_t{16} << 30;

// Keeps a computed figure from being optimised away.
volatile std::int64_t sink = 0;

}  // namespace

void check_config_text(const std::string& yaml, const std::string& file) {
  ConfigDocument doc;  // what read_config builds from the file's text, without overrides
  doc.file = file;
  doc.source_map = SourceMap(file);
  doc.json = yaml_to_json(yaml, file, doc.source_map);
  validate_config(doc);
  Experiment experiment = resolve_experiment(doc);

  DatasetGeometry geometry = dataset_geometry(experiment.dataset);
  Graph graph = build_graph(experiment.model, geometry.image, geometry.classes);
  const TrainingSpec& training = experiment.training;
  check_training_batches(graph, training.batch_size,
                         planned_dataset_records(experiment.dataset).train);
  MemoryEstimate memory = estimate_training_memory(graph, training.batch_size,
                                                   training.eval_batch_size, training.optimizer);
  sink = graph.parameter_count() + graph.flops_per_sample() + memory.total();
  check_host_memory(experiment, graph, kPhysicalBytes);
}

}  // namespace runner::fuzzing
