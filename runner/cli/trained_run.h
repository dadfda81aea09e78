// A trained run, as `predict` and `eval` take it: a run folder (its report.json and the
// checkpoint it kept) or a checkpoint file with the report.json beside it.
#pragma once

#include <filesystem>
#include <string>

#include "runner/config/experiment.h"
#include "runner/graph/graph.h"
#include "runner/report/run_record.h"

namespace runner {

// The run's report and the checkpoint to load: a run folder's report and its checkpoint.path,
// or a checkpoint file and the report.json beside it.
struct TrainedRun {
  std::filesystem::path report_path, checkpoint;
  RunRecord report;
};

// The run of `model` (a folder or a checkpoint file), its report read; a UserError naming the
// path when there is no such run, no report beside it, or a report without a config.
TrainedRun find_trained_run(const std::filesystem::path& model);

// The weights of a run folder: the folder's own file first (the config's checkpoint.path inside
// it, else the report's file name there), so a copied or moved folder uses what it holds; the
// report's path as written only when the folder has neither. `configured_path`: the run's
// config's checkpoint.path.
std::filesystem::path checkpoint_of(const RunRecord& report, const std::filesystem::path& run_dir,
                                    const std::string& configured_path);

struct ClassNames {
  std::vector<std::string> names;
  std::string origin;  // why there are that many, for a model that does not give as many values
};

// A trained run ready to use its model: the experiment its report resolved (checked as `run`
// checks a config: an edited report is refused naming the report and the field,
// "RUN/report.json: config.model.layers[0]: ..."), its class names in label order, its graph
// built, and its checkpoint found and checked to fit the graph, before anything is compiled.
struct TrainedModel {
  TrainedRun run;  // run.checkpoint set
  Experiment experiment;
  ClassNames classes;
  Graph graph;
};
TrainedModel open_trained_model(const std::filesystem::path& model);

}  // namespace runner
