// `runner validate`, `runner describe` and `runner devices`: look without training.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <thread>

#include "backends/cudnn/gpu_precisions.h"
#include "backends/gpu_library.h"
#include "backends/onednn/onednn_backend.h"
#include "backends/onednn/peak_flops.h"
#include "runner/cli/commands.h"
#include "runner/config/resolved_json.h"
#include "runner/data/dataset_format.h"
#include "runner/data/planned_split.h"
#include "runner/graph/training_batches.h"
#include "runner/run/layer_table.h"
#include "runner/run/precision_check.h"
#include "runner/util/process_stats.h"
#include "runner/util/threads.h"

namespace runner {

namespace {

// `run` reads the data; `validate` reads the data files' headers, so that it does not call
// valid what `run` refuses, and says which files are not there yet. False: some are not (and
// dataset.download will fetch them).
bool check_data_files(const DatasetSpec& spec, Console& console) {
  const DatasetFormat& format = format_of(spec);
  if (!format.check_files) return true;
  const std::vector<std::string> missing = format.check_files(spec);
  if (missing.empty()) return true;
  const std::string text = fmt::format("dataset.root {} lacks {} of the data files ({})", spec.root,
                                       missing.size(), fmt::join(missing, ", "));
  if (spec.download && format.download) {
    console.warning("warning: " + text + "; `runner run` downloads them (dataset.download is set)");
    return false;
  }
  throw UserError(text + "; put them there, or set dataset.download where the format can");
}

// The validation split as `run` will hold it out (the same rule, on the labels the format lists
// without decoding), and the training batches on what it leaves.
void check_planned_split(const Session& session) {
  const Experiment& experiment = session.experiment;
  const std::optional<std::int64_t> train = planned_training_images(
      experiment.dataset, {experiment.source_file, "dataset.validation_split"});
  if (train) check_training_batches(session.graph, experiment.training.batch_size, *train);
}

}  // namespace

int validate_command(const SessionOptions& options) {
  Console console(options.quiet);
  Session session = Session::prepare(options, console);
  // The device as `run` gets it: a precision it cannot run, a layer its backend lacks.
  session.open_device(console);
  if (check_data_files(session.experiment.dataset, console)) check_planned_split(session);
  console.result(fmt::format("{}: valid ({} layers, {} parameters)", options.config.string(),
                             session.graph.nodes.size(), session.graph.parameter_count()));
  return 0;
}

int describe_command(const SessionOptions& options, bool flat, bool json) {
  Console console(options.quiet || json);
  Session session = Session::prepare(options, console);
  if (json) {
    // For tools that build the same network (scripts/pytorch_peer.py): the expansion is the
    // runner's, so they need not repeat it.
    const nlohmann::json out = {{"config", session.experiment.resolved},
                                {"layers", plain_layers_json(session.experiment.model)}};
    console.result(out.dump(1));
    return 0;
  }
  console.result(layer_table(session.graph, session.experiment.model, flat));
  return 0;
}

namespace {

// One block per GPU, or one line saying why there are none.
void list_gpus(Console& console) {
  const cudnn::GpuInventory& gpus = gpu_inventory();
  if (gpus.devices.empty()) console.result(fmt::format("cuda: not available: {}", gpus.problem));
  for (const cudnn::GpuDevice& d : gpus.devices) {
    console.result(fmt::format("cuda:{}: {}, {:.1f} GiB memory, compute capability {}.{}, {} SMs",
                               d.index, d.name, static_cast<double>(d.memory_bytes) / (1u << 30),
                               d.major, d.minor, d.multiprocessors));
    DeviceInfo precisions;
    precisions.precisions = cudnn::gpu_precisions(d.major, d.minor);
    console.result(fmt::format("  precisions: {}", precisions_text(precisions)));
  }
  if (!gpus.cudnn.empty()) {  // the GPU backend loaded (even where no driver or GPU was found)
    console.result(fmt::format("  driver {}, CUDA runtime {}, cuDNN {}, cuBLAS {}", gpus.driver,
                               gpus.runtime, gpus.cudnn, gpus.cublas));
  }
}

}  // namespace

int devices_command(bool measure_peak) {
  Console console;
  onednn::OnednnBackend cpu;
  DeviceInfo info = cpu.info();
  console.result(fmt::format("cpu: {}, {:.1f} GiB memory", info.name,
                             static_cast<double>(physical_memory_bytes()) / (1u << 30)));
  console.result(fmt::format("  cores: {}, oneDNN {} (ISA {}), default threads {}",
                             info.details["cores"], info.details["onednn_version"],
                             info.details["isa"], resolve_threads(0)));
  console.result(fmt::format("  precisions: {}", precisions_text(info)));
  if (measure_peak) {
    const int threads = resolve_threads(0);
    const double fp32 = onednn::measure_peak_flops(threads, Precision::fp32);
    console.result(
        fmt::format("  attainable FP32: {:.1f} GFLOP/s on {} threads (2048^3 oneDNN matmul)",
                    fp32 / 1e9, threads));
    // bf16 is not faster everywhere: emulated, or on some CPUs with AVX512-BF16 and no AMX.
    if (info.precisions.contains(Precision::bf16)) {
      const double bf16 = onednn::measure_peak_flops(threads, Precision::bf16);
      console.result(fmt::format("  attainable bf16: {:.1f} GFLOP/s, {:.2f}x FP32{}", bf16 / 1e9,
                                 bf16 / fp32, bf16 < fp32 ? " (slower: train in fp32 here)" : ""));
    }
  }
  list_gpus(console);
  return 0;
}

}  // namespace runner
