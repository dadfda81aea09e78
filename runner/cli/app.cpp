// Command-line parsing and dispatch.
#include "runner/cli/app.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <csignal>
#include <cstring>
#include <iostream>
#include <limits>
#include <new>
#include <optional>
#include <sstream>

#include "runner/cli/command_hints.h"
#include "runner/cli/commands.h"
#include "runner/cli/slurm_sweep.h"
#include "runner/report/environment.h"
#include "runner/sweep/sweep_spec.h"
#include "runner/train/run_status.h"
#include "runner/util/command_line.h"
#include "runner/util/errors.h"
#include "runner/util/interrupt.h"
#include "runner/util/long_text.h"
#include "runner/util/terminal_text.h"

namespace runner {
namespace {

// `writes_report`: the command writes a report (run, eval, bench), so --output applies.
void add_config_options(CLI::App& command, SessionOptions& options, bool writes_report = true) {
  command.add_option("config", options.config, "experiment config (YAML)")->required();
  command
      .add_option("--set", options.overrides,
                  "override a config value before validation, e.g. training.batch_size=64 "
                  "(repeatable)")
      ->take_all();
  if (!writes_report) {
    command.add_flag("--quiet,-q", options.quiet, "print only warnings and the result");
    return;
  }
  command.add_option("--output", options.output, "folder for run reports")->capture_default_str();
  command.add_flag("--quiet,-q", options.quiet, "print only warnings and the report path");
}

// --tag key=value, repeatable: labels the report carries (checked by parse_tag_options).
void add_tag_option(CLI::App& command, std::vector<std::string>& tags) {
  command.add_option("--tag", tags, "label the report: key=value (repeatable; adds to tags:)")
      ->take_all();
}

// A whole number from `low` to `high`, checked on the text: CLI11 would otherwise clamp a
// number too large for its type without a word, or print its range as doubles.
CLI::Validator whole_number(std::int64_t low, std::int64_t high) {
  return CLI::Validator(
      [low, high](std::string& text) -> std::string {
        std::int64_t value = 0;
        auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error != std::errc() || end != text.data() + text.size() || value < low ||
            value > high) {
          return fmt::format("found {}, expected a whole number from {} to {}", shortened(text, 24),
                             low, high);
        }
        return "";
      },
      fmt::format("INT in [{}, {}]", low, high));
}

constexpr std::int64_t kMaxSteps = 100'000'000;

void add_benchmark_options(CLI::App& command, int& warmup_steps, int& steps, int& profile_steps) {
  command.add_option("--warmup-steps", warmup_steps, "untimed steps first")
      ->check(whole_number(0, kMaxSteps));
  command.add_option("--steps", steps, "timed steps")->check(whole_number(1, kMaxSteps));
  command
      .add_option("--profile-steps", profile_steps,
                  "steps timed per layer, one after each timed step")
      ->check(whole_number(0, kMaxSteps));
}

CLI::App* add_sweep_command(CLI::App& app, SweepOptions& o) {
  auto* command =
      app.add_subcommand("sweep",
                         "run a config at many points (batch size, width, device, ...); `runner "
                         "sweep status DIR` follows a sweep submitted to Slurm");
  command
      ->add_option("file", o.file,
                   "a sweep file (with a sweep: block), or a config to vary with --grid/--zip")
      ->required();
  command
      ->add_option("--grid", o.grid,
                   "vary a config path over values: PATH=V1,V2,... (repeatable; all "
                   "combinations)")
      ->take_all();
  command
      ->add_option("--zip", o.zip,
                   "vary paths together: PATH=V1,V2,... (repeatable; equal lengths)")
      ->take_all();
  command->add_option("--set", o.overrides, "override a config value at every point (repeatable)")
      ->take_all();
  command->add_option("--mode", o.mode, "benchmark (timed steps only) or train (full training)")
      ->check(CLI::IsMember({mode_name(RunMode::benchmark), mode_name(RunMode::train)}));
  add_benchmark_options(*command, o.warmup_steps, o.steps, o.profile_steps);
  command->add_option("--seed", o.seed, "one seed for every point (else each point its own)")
      ->check(whole_number(0, std::numeric_limits<std::int64_t>::max()));
  command
      ->add_option("--repeats", o.repeats,
                   "run every point N times, with seeds seed, seed+1, ...; the summary gives "
                   "mean and std")
      ->check(whole_number(1, kMaxRepeats));
  command->add_option("--name", o.name, "the sweep's name (its folder)");
  command->add_option("--output", o.output,
                      "the folder for sweep folders (default results/sweeps)");
  command
      ->add_option("--point", o.point,
                   "run only point K of the plan (its # column) into the sweep's folder, and "
                   "exit with its status")
      ->check(whole_number(1, std::numeric_limits<int>::max()));
  command
      ->add_option("--jobs,-j", o.jobs,
                   "run up to N points at once, each in its own process (CPU points share the "
                   "cores: cores / N threads each unless the config sets training.threads)")
      ->check(whole_number(1, 1024));
  command->add_option("--gpus", o.gpus,
                      "with --jobs: the GPUs to hand out, one running GPU point each, e.g. 0,1 "
                      "(default: every usable GPU)");
  add_tag_option(*command, o.tags);
  command->add_flag("--fail-fast", o.fail_fast, "stop at the first point that does not complete");
  command->add_flag("--force", o.force, "rerun every point, also those already done");
  command->add_flag_callback(
      "--tensorboard", [&o] { o.overrides.push_back("logging.tensorboard=true"); },
      "every point writes TensorBoard event files in SWEEP_DIR/tensorboard/<point>");
  command->add_flag("--dry-run", o.dry_run, "print the plan and stop");
  command->add_flag("--verbose,-v", o.verbose, "show each point's own output");
  command->add_flag("--quiet,-q", o.quiet, "print only warnings and the last line");
  add_launcher_options(*command, o.launcher);
  return command;
}

std::vector<std::string> command_names(CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* command : app.get_subcommands([](CLI::App*) { return true; }))
    names.push_back(command->get_name());
  return names;
}

// `runner CONFIG ...` is short for `runner run CONFIG ...`.
std::vector<std::string> with_default_command(std::vector<std::string> args,
                                              const std::vector<std::string>& commands) {
  if (!args.empty() && args[0][0] != '-' &&
      std::find(commands.begin(), commands.end(), args[0]) == commands.end())
    args.insert(args.begin(), "run");
  rewrite_sweep_status(args);              // `runner sweep status DIR` is the command sweep-status
  std::reverse(args.begin(), args.end());  // CLI11 parses a reversed vector
  return args;
}

// Every command's options, and the subcommand that was given.
struct Commands {
  RunOptions run;
  SessionOptions validate, describe, eval;
  bool describe_flat = false, describe_json = false;
  std::filesystem::path checkpoint;  // eval's
  PredictOptions predict;
  ExportOptions export_model;
  bool measure_peak = false;  // devices'
  BenchOptions bench;
  SweepOptions sweep;
  SweepStatusOptions sweep_status;
  std::filesystem::path report_dir;
  bool report_quiet = false;
  bool report_html = false;
  ReproduceOptions reproduce;
  CompareOptions compare;
  CLI::App* compare_cmd = nullptr;
  RunsOptions runs;
  CLI::App* runs_cmd = nullptr;
  CLI::App *run_cmd = nullptr, *validate_cmd = nullptr, *describe_cmd = nullptr,
           *eval_cmd = nullptr, *devices_cmd = nullptr, *bench_cmd = nullptr, *sweep_cmd = nullptr,
           *report_cmd = nullptr, *reproduce_cmd = nullptr, *sweep_status_cmd = nullptr,
           *predict_cmd = nullptr, *export_cmd = nullptr;
};

// The commands that run or look at one config: run, validate, describe, eval.
void add_config_commands(CLI::App& app, Commands& c) {
  c.run_cmd = app.add_subcommand("run", "train and evaluate an experiment, write its report");
  add_config_options(*c.run_cmd, c.run);
  c.run_cmd->add_option("--resume", c.run.resume,
                        "continue training from a checkpoint, in its run's folder (with --output: "
                        "in a new one)");
  c.run_cmd->add_flag_callback(
      "--tensorboard", [&c] { c.run.overrides.push_back("logging.tensorboard=true"); },
      "write TensorBoard event files in RUN_DIR/tensorboard (logging.tensorboard)");
  c.run_cmd->add_flag_callback(
      "--html", [&c] { c.run.overrides.push_back("report.html=true"); },
      "write RUN_DIR/report.html, the run's page, when it ends (report.html)");
  add_tag_option(*c.run_cmd, c.run.tags);

  c.validate_cmd = app.add_subcommand("validate", "check a config against the schema and shapes");
  add_config_options(*c.validate_cmd, c.validate, /*writes_report=*/false);

  c.describe_cmd = app.add_subcommand("describe", "print each layer's shape, parameters and FLOPs");
  add_config_options(*c.describe_cmd, c.describe, /*writes_report=*/false);
  c.describe_cmd->add_flag("--flat", c.describe_flat,
                           "one row per layer, without grouping the layers of each block");
  c.describe_cmd->add_flag("--json", c.describe_json,
                           "print the resolved config and its plain layers (blocks expanded) as "
                           "JSON");

  c.eval_cmd = app.add_subcommand(
      "eval",
      "evaluate a checkpoint on the test set: CONFIG --checkpoint FILE, or a run folder "
      "(or its checkpoint with report.json beside it), which brings its own config");
  add_config_options(*c.eval_cmd, c.eval);
  c.eval_cmd->add_option("--checkpoint", c.checkpoint,
                         "safetensors checkpoint (with a config; a run folder needs none)");
}

// The RUN argument of the commands that use a trained model.
void add_trained_run_argument(CLI::App& command, std::filesystem::path& model) {
  command
      .add_option("run", model,
                  "a run's folder (its report.json and checkpoint), or a checkpoint with the "
                  "run's report.json beside it")
      ->required();
}

// predict: label image files with a trained run's model.
void add_predict_command(CLI::App& app, Commands& c) {
  PredictOptions& o = c.predict;
  c.predict_cmd = app.add_subcommand(
      "predict", "label image files with a trained model, preprocessed as its run's data was");
  add_trained_run_argument(*c.predict_cmd, o.model);
  c.predict_cmd
      ->add_option("files", o.files, "image files, or folders walked as image_folder walks them")
      ->required();
  c.predict_cmd->add_option("--top-k", o.top_k, "classes shown per image, most probable first")
      ->capture_default_str()
      ->check(whole_number(1, 1'000'000));
  c.predict_cmd->add_flag("--json", o.json,
                          "print a JSON list of {path, predictions: [{class, probability}]}");
  c.predict_cmd
      ->add_option(
          "--batch-size", o.batch_size,
          "images per forward pass (default: the run's training.eval_batch_size, at most the "
          "number of files)")
      ->check(whole_number(1, 1'000'000));
  c.predict_cmd->add_option("--device", o.device,
                            "auto, cpu, cuda or cuda:N (default: the run's device)");
}

// export: the trained network as an ONNX model.
void add_export_command(CLI::App& app, Commands& c) {
  ExportOptions& o = c.export_model;
  c.export_cmd = app.add_subcommand(
      "export", "write a trained model as ONNX (opset 13), its normalisation included");
  add_trained_run_argument(*c.export_cmd, o.model);
  c.export_cmd->add_option("--onnx", o.onnx, "the ONNX file to write")->required();
  c.export_cmd->add_flag("--softmax", o.softmax,
                         "add the softmax of the logits as a second output, 'probabilities'");
  c.export_cmd
      ->add_option("--batch", o.batch,
                   "a fixed batch size (default: any, a symbolic dimension; OpenCV 4.6 runs "
                   "channel gates only with a fixed one)")
      ->check(whole_number(1, 1'000'000));
}

// devices, then bench.
void add_devices_and_bench(CLI::App& app, Commands& c) {
  c.devices_cmd = app.add_subcommand("devices", "list the CPU and GPUs this runner can use");
  c.devices_cmd->add_flag("--peak", c.measure_peak,
                          "also measure the CPU's attainable FP32 rate (a large oneDNN matmul)");
  c.bench_cmd = app.add_subcommand(
      "bench", "time training steps per layer (like caffe time), write a report");
  add_config_options(*c.bench_cmd, c.bench);
  add_benchmark_options(*c.bench_cmd, c.bench.benchmark.warmup_steps, c.bench.benchmark.steps,
                        c.bench.benchmark.profile_steps);
  add_tag_option(*c.bench_cmd, c.bench.tags);
}

// The commands about reports: report, reproduce.
void add_report_commands(CLI::App& app, Commands& c) {
  c.report_cmd =
      app.add_subcommand("report",
                         "summarise a sweep folder (table, summary files, plots), a folder of "
                         "runs (its table; nothing written without --html) or one run (its "
                         "figures and curves)");
  c.report_cmd
      ->add_option("dir", c.report_dir,
                   "a sweep folder (results/sweeps/<name>), any folder of reports, or one run's "
                   "folder or report.json")
      ->required();
  c.report_cmd->add_flag("--quiet,-q", c.report_quiet, "print only warnings and the summary path");
  c.report_cmd->add_flag("--html", c.report_html,
                         "also write one run's page, RUN_DIR/report.html, or a folder of runs' "
                         "summary files, page and plots (a sweep folder's report.html and its "
                         "points' pages are written always)");

  c.reproduce_cmd =
      app.add_subcommand("reproduce", "rerun a report's embedded config and compare its metrics");
  c.reproduce_cmd
      ->add_option("report", c.reproduce.report, "a report.json of a train or benchmark run")
      ->required();
  c.reproduce_cmd->add_option("--output", c.reproduce.output, "folder for the rerun's report")
      ->capture_default_str();
  c.reproduce_cmd->add_flag("--quiet,-q", c.reproduce.quiet, "print only the comparison");
  c.reproduce_cmd->add_flag("--allow-outside-run-folder", c.reproduce.allow_outside_run_folder,
                            "write the checkpoint to the original's absolute checkpoint.path "
                            "again (default: inside the rerun's folder)");

  c.compare_cmd = app.add_subcommand(
      "compare", "reports side by side: config and environment differences, metric deltas");
  c.compare_cmd
      ->add_option("reports", c.compare.paths,
                   "two or more reports, run folders or folders of runs (repeats: same config "
                   "up to the seed)")
      ->required();
  c.compare_cmd->add_flag("--json", c.compare.json, "print the comparison as JSON");
  c.compare_cmd->add_option("--html", c.compare.html,
                            "also write the comparison as a self-contained page, FILE");

  c.runs_cmd = app.add_subcommand(
      "runs", "every run and sweep point below folders as one table, filtered and sorted");
  c.runs_cmd->add_option("folders", c.runs.folders, "folders to search (default: results)");
  c.runs_cmd->add_option("--where", c.runs.where,
                         "keep the runs where EXPR holds, e.g. 'training.optimizer.lr < 0.01 and "
                         "status == completed' (config paths, report fields, metrics, tags.NAME)");
  c.runs_cmd
      ->add_option("--sort", c.runs.sort,
                   "sort by these fields, '-' first for descending (e.g. -val_accuracy)")
      ->delimiter(',');
  c.runs_cmd->add_option("--columns", c.runs.columns, "the fields to show, comma-separated")
      ->delimiter(',');
  c.runs_cmd->add_option("--limit", c.runs.limit, "at most N rows (after sorting)")
      ->check(CLI::NonNegativeNumber);
  c.runs_cmd->add_option("--format", c.runs.format, "table, csv or json")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  c.runs_cmd->add_flag("--no-cache", c.runs.no_cache,
                       "read every report, and keep no index in the cache folder");
}

// The arguments CLI11 left over, in the order typed (it reports them reversed).
std::vector<std::string> unexpected_arguments(CLI::App& app, const std::vector<std::string>& args) {
  std::vector<std::string> left = app.remaining(true);
  std::vector<std::string> in_order;
  std::vector<bool> used(left.size(), false);
  for (const auto& arg : args) {
    for (std::size_t i = 0; i < left.size(); ++i) {
      if (!used[i] && left[i] == arg) {
        used[i] = true;
        in_order.push_back(arg);
        break;
      }
    }
  }
  for (std::size_t i = 0; i < left.size(); ++i) {
    if (!used[i]) in_order.push_back(left[i]);  // split by CLI11 ("--a=1"): kept, at the end
  }
  return in_order;
}

// The exit code of a parse that ends the program (help, version, a bad argument), else none.
std::optional<int> parse(CLI::App& app, int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  const std::vector<std::string> commands = command_names(app);
  if (args.empty()) {  // the commands and the short form, rather than "A subcommand is required"
    std::cerr << app.help() << "error: no command given\n";
    return 2;
  }
  if (looks_like_command(args[0]) &&
      std::find(commands.begin(), commands.end(), args[0]) == commands.end()) {
    std::cerr << "error: " << terminal_lines(unknown_command_message(args[0], commands)) << "\n";
    return 2;
  }
  try {
    app.parse(with_default_command(args, commands));
  } catch (const CLI::ExtrasError& e) {
    std::vector<std::string> extras = unexpected_arguments(app, args);
    std::cerr << "error: "
              << terminal_lines(extras.empty() ? e.what() : unexpected_arguments_message(extras))
              << "\nRun with --help for more information.\n";
    return 2;
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {  // its message quotes the arguments
    std::ostringstream out, err;
    app.exit(e, out, err);
    std::cout << terminal_lines(out.str());
    std::cerr << terminal_lines(err.str());
    return 2;
  }
  return std::nullopt;
}

int dispatch(const Commands& c) {
  if (*c.run_cmd) {
    RunOptions run = c.run;
    run.output_given = c.run_cmd->count("--output") > 0;
    return run_command(run);
  }
  if (*c.validate_cmd) return validate_command(c.validate);
  if (*c.describe_cmd) return describe_command(c.describe, c.describe_flat, c.describe_json);
  if (*c.eval_cmd) return eval_command(c.eval, c.checkpoint);
  if (*c.devices_cmd) return devices_command(c.measure_peak);
  if (*c.predict_cmd) return predict_command(c.predict);
  if (*c.export_cmd) return export_command(c.export_model);
  if (*c.bench_cmd) return bench_command(c.bench);
  if (*c.sweep_cmd) {
    if (c.sweep.point > 0) return sweep_point_command(c.sweep);
    return launches_on_slurm(c.sweep) ? slurm_sweep_command(c.sweep) : sweep_command(c.sweep);
  }
  if (*c.sweep_status_cmd) return sweep_status_command(c.sweep_status);
  if (*c.report_cmd) return report_command(c.report_dir, c.report_quiet, c.report_html);
  if (*c.reproduce_cmd) return reproduce_command(c.reproduce);
  if (*c.compare_cmd) return compare_command(c.compare);
  if (*c.runs_cmd) return runs_command(c.runs);
  return 1;
}

// The command, its errors turned into a message and an exit code.
int dispatch_reporting_errors(const Commands& c) {
  try {
    install_interrupt_handler();
    // `runner run ... | head` closes the pipe early: the run goes on and writes its report (the
    // lines after that are lost) instead of dying of SIGPIPE with nothing written.
    std::signal(SIGPIPE, SIG_IGN);
    return dispatch(c);
  } catch (const UserError& e) {
    std::cerr << "error: " << terminal_lines(e.what()) << "\n";
    return 2;
  } catch (const Interrupted& e) {
    std::cerr << terminal_lines(e.what()) << "\n";
    return 130;
  } catch (const std::bad_alloc&) {
    // The memory plan is checked before a run; this is what it could not foresee (a ulimit, a
    // container). The model's size is named too: 100,000 classes make a large output layer.
    std::cerr << "error: out of host memory (std::bad_alloc): lower training.batch_size, "
                 "training.eval_batch_size, the model's size (model.width, its layers' sizes; the "
                 "output layer has one value per class) or the number of images\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << terminal_lines(e.what()) << "\n";
    return 1;
  }
}

}  // namespace

int run_cli(int argc, char** argv) {
  remember_command_line(argc, argv);  // the report's argv
  CLI::App app{"runner: declarative deep-learning experiments on oneDNN (CPU) and cuDNN (GPU)"};
  app.name("runner");
  app.set_version_flag("--version", fmt::format("runner {} ({})", runner_version(), git_commit()));
  app.require_subcommand(1);
  Commands commands;
  add_config_commands(app, commands);  // in the order `runner --help` lists them
  add_devices_and_bench(app, commands);
  add_predict_command(app, commands);
  add_export_command(app, commands);
  commands.sweep_cmd = add_sweep_command(app, commands.sweep);
  commands.sweep_status_cmd = add_sweep_status_command(app, commands.sweep_status);
  add_report_commands(app, commands);
  // After the commands: a footer set before them would be inherited by their --help.
  app.footer("`runner CONFIG [OPTIONS]` is short for `runner run CONFIG [OPTIONS]`.");
  if (auto exit_code = parse(app, argc, argv)) return *exit_code;
  commands.sweep.arguments.assign(argv + 1, argv + argc);
  return dispatch_reporting_errors(commands);
}

}  // namespace runner
