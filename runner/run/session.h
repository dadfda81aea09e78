// What every command that runs a model shares: the loaded experiment, its graph (checked
// before anything is allocated), the backend, the data and a compiled program.
#pragma once

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "runner/config/experiment.h"
#include "runner/data/dataset.h"
#include "runner/graph/graph.h"
#include "runner/run/precision_timing.h"
#include "runner/util/console.h"

namespace runner {

struct SessionOptions {
  std::filesystem::path config;
  std::vector<std::string> overrides;
  std::filesystem::path output = "results";
  bool quiet = false;
  std::vector<std::string> tags;  // --tag key=value (run, bench): the report's tags
};

struct Session {
  Experiment experiment;
  Graph graph;
  std::unique_ptr<Backend> backend;
  DeviceInfo device;
  int threads = 1;
  DatasetSplits data;
  std::optional<PrecisionChoice> precision_choice;  // training.precision: fastest
  LossWeighting loss_weighting;     // training.loss's class weights, set when the data is open
  nlohmann::json data_fingerprint;  // the report's `data` block: the files read and their hashes

  // Loads and validates the config and builds the graph (nothing allocated yet).
  static Session prepare(const SessionOptions& options, Console& console);
  // Chooses the backend and loads the data.
  void open(Console& console);
  // Chooses the backend and checks the graph's layers and the precision against the device it
  // got: what `validate` runs too, so that it does not call valid what `run` refuses (fp16 on a
  // CPU, bf16 where the CPU only emulates it).
  void open_device(Console& console);
  // Before training or benchmarking in another precision than fp32: times a few steps of
  // throwaway programs in both and warns when the chosen one is the slower here (a second or
  // two; bf16 on a CPU that emulates it, or whose kernels for these layers are slow in it, ran at
  // 0.2-0.85x fp32).
  void warn_if_precision_is_slower(Console& console) const;
  // training.precision: fastest: times a few steps of throwaway programs in each candidate
  // precision (or takes `replayed`, the original run's choice) and trains in the fastest.
  void choose_precision(Console& console, std::optional<Precision> replayed);
  // A freshly compiled program with the seed's initial parameters.
  std::unique_ptr<Program> compile() const { return compile(threads); }
  // The same for `compute_threads` (a count fitted to the machine before compiling).
  std::unique_ptr<Program> compile(int compute_threads) const;
  CompileOptions compile_options() const;

 private:
  // After the data is read: the validation split, the checks of the data against the graph and
  // the report's data block.
  void open_data(Console& console);
};

}  // namespace runner
