// The subcommands; each returns the process exit code (0 success, 1 failure, 2 user error).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "runner/cli/launcher_options.h"
#include "runner/run/session.h"
#include "runner/train/benchmark.h"

namespace runner {

struct RunOptions : SessionOptions {
  std::filesystem::path resume;  // a checkpoint to continue training from
  bool output_given = false;     // --output on the command line: a resumed run gets a new folder
};

struct BenchOptions : SessionOptions {
  BenchmarkSpec benchmark{10, 50, 50};
};

struct SweepOptions {
  LauncherOptions launcher;    // where the points run (--launcher slurm and its resources)
  std::filesystem::path file;  // a sweep file, or a config varied by --grid/--zip
  std::vector<std::string> grid, zip, overrides;
  std::vector<std::string> tags;  // --tag key=value: every point report's tags
  std::string mode;               // "" keeps the sweep file's (benchmark by default)
  int warmup_steps = -1, steps = -1, profile_steps = -1;  // -1 keeps the sweep file's
  std::int64_t seed = -1;                                 // >= 0: every point's seed
  int repeats = 0;   // > 0: runs of every point (seeds seed, seed+1, ...); 0 keeps the file's
  std::string name;  // "" keeps the sweep file's, else "<experiment name>-sweep"
  std::filesystem::path output;  // "" keeps the sweep file's, else results/sweeps
  bool fail_fast = false, force = false, dry_run = false, quiet = false, verbose = false;
  int point = 0;     // > 0: run only this point of the plan (1-based, the plan's # column)
  int jobs = 1;      // points at once (> 1: child processes)
  std::string gpus;  // "0,1": the GPUs --jobs hands out ("" all usable ones)
  std::vector<std::string> arguments;  // the command line after `runner`, for --jobs' children
};

struct ReproduceOptions {
  std::filesystem::path report;
  std::filesystem::path output = "results";
  bool quiet = false;
  // Write the checkpoint to the original's absolute checkpoint.path again (its config set
  // allow_outside_run_folder); by default the rerun keeps it inside its own run folder.
  bool allow_outside_run_folder = false;
};

struct CompareOptions {
  std::vector<std::filesystem::path> paths;  // reports, run folders or folders of runs
  bool json = false;                         // the comparison as JSON, for scripts
  std::filesystem::path html;                // also as a page, written there ("": none)
};

struct RunsOptions {
  std::vector<std::filesystem::path> folders;  // searched for report.json files (default results)
  std::string where;                           // a RunQuery ("": every run)
  std::vector<std::string> sort;               // fields, "-" first for descending
  std::vector<std::string> columns;            // "": the default columns
  int limit = 0;                               // 0: all
  std::string format = "table";                // table | csv | json
  bool no_cache = false;                       // read every report, keep no index
};

struct ExportOptions {
  std::filesystem::path model;  // a run's folder, or its checkpoint (report.json beside)
  std::filesystem::path onnx;   // the model file to write
  bool softmax = false;         // a "probabilities" output beside "logits"
  int batch = 0;                // a fixed batch size; 0: any
};

struct PredictOptions {
  std::filesystem::path model;  // a run's folder, or its checkpoint (report.json beside)
  std::vector<std::filesystem::path> files;  // image files and folders of them
  int top_k = 3;
  bool json = false;   // a JSON list on stdout, nothing else there
  int batch_size = 0;  // images per forward pass; 0: the run's eval_batch_size (or fewer files)
  std::string device;  // "" the report's
};

int run_command(const RunOptions& options);
int bench_command(const BenchOptions& options);
int sweep_command(const SweepOptions& options);
int sweep_point_command(const SweepOptions& options);         // `--point K`
int sweep_status_command(const SweepStatusOptions& options);  // `runner sweep status DIR`
int report_command(const std::filesystem::path& dir, bool quiet, bool html);
int reproduce_command(const ReproduceOptions& options);
int compare_command(const CompareOptions& options);
int runs_command(const RunsOptions& options);
int validate_command(const SessionOptions& options);
// `json`: {"config": the resolved config, "layers": its plain layers, blocks expanded}.
int describe_command(const SessionOptions& options, bool flat, bool json);
int eval_command(const SessionOptions& options, const std::filesystem::path& checkpoint);
int devices_command(bool measure_peak);
// Exit 1 when a file could not be decoded (the others are still labelled).
int predict_command(const PredictOptions& options);
int export_command(const ExportOptions& options);

}  // namespace runner
