// Command-line parsing and dispatch.
#include "runner/cli/app.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstring>
#include <iostream>
#include <limits>
#include <new>
#include <set>

#include "runner/cli/commands.h"
#include "runner/report/environment.h"
#include "runner/util/errors.h"
#include "runner/util/interrupt.h"

namespace runner {
namespace {

void add_config_options(CLI::App& command, SessionOptions& options) {
  command.add_option("config", options.config, "experiment config (YAML)")->required();
  command
      .add_option("--set", options.overrides,
                  "override a config value before validation, e.g. training.batch_size=64 "
                  "(repeatable)")
      ->take_all();
  command.add_option("--output", options.output, "folder for run reports")->capture_default_str();
  command.add_flag("--quiet,-q", options.quiet, "print only warnings and the report path");
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
          return fmt::format("found {}, expected a whole number from {} to {}",
                             text.size() > 24 ? text.substr(0, 20) + "..." : text, low, high);
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
      app.add_subcommand("sweep", "run a config at many points (batch size, width, device, ...)");
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
      ->check(CLI::IsMember({"benchmark", "train"}));
  add_benchmark_options(*command, o.warmup_steps, o.steps, o.profile_steps);
  command->add_option("--seed", o.seed, "one seed for every point (else each point its own)")
      ->check(whole_number(0, std::numeric_limits<std::int64_t>::max()));
  command->add_option("--name", o.name, "the sweep's name (its folder)");
  command->add_option("--output", o.output,
                      "the folder for sweep folders (default results/sweeps)");
  command->add_flag("--fail-fast", o.fail_fast, "stop at the first point that does not complete");
  command->add_flag("--force", o.force, "rerun every point, also those already done");
  command->add_flag("--dry-run", o.dry_run, "print the plan and stop");
  command->add_flag("--verbose,-v", o.verbose, "show each point's own output");
  command->add_flag("--quiet,-q", o.quiet, "print only warnings and the last line");
  return command;
}

// `runner CONFIG ...` is short for `runner run CONFIG ...`.
std::vector<std::string> with_default_command(int argc, char** argv) {
  static const std::set<std::string> commands = {
      "run", "bench", "sweep", "report", "validate", "describe", "eval", "devices", "reproduce"};
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0][0] != '-' && !commands.count(args[0]))
    args.insert(args.begin(), "run");
  std::reverse(args.begin(), args.end());  // CLI11 parses a reversed vector
  return args;
}

}  // namespace

int run_cli(int argc, char** argv) {
  CLI::App app{"runner: declarative deep-learning experiments on oneDNN (CPU) and cuDNN (GPU)"};
  app.name("runner");
  app.set_version_flag("--version", fmt::format("runner {} ({})", runner_version(), git_commit()));
  app.require_subcommand(1);

  RunOptions run;
  auto* run_cmd = app.add_subcommand("run", "train and evaluate an experiment, write its report");
  add_config_options(*run_cmd, run);
  run_cmd->add_option("--resume", run.resume, "continue training from a checkpoint");

  SessionOptions validate;
  auto* validate_cmd =
      app.add_subcommand("validate", "check a config against the schema and shapes");
  add_config_options(*validate_cmd, validate);

  SessionOptions describe;
  auto* describe_cmd =
      app.add_subcommand("describe", "print each layer's shape, parameters and FLOPs");
  add_config_options(*describe_cmd, describe);

  SessionOptions eval;
  std::filesystem::path checkpoint;
  auto* eval_cmd = app.add_subcommand("eval", "evaluate a checkpoint on the test set");
  add_config_options(*eval_cmd, eval);
  eval_cmd->add_option("--checkpoint", checkpoint, "safetensors checkpoint")->required();

  auto* devices_cmd = app.add_subcommand("devices", "list the CPU and GPUs this runner can use");
  bool measure_peak = false;
  devices_cmd->add_flag("--peak", measure_peak,
                        "also measure the CPU's attainable FP32 rate (a large oneDNN matmul)");

  BenchOptions bench;
  auto* bench_cmd = app.add_subcommand(
      "bench", "time training steps per layer (like caffe time), write a report");
  add_config_options(*bench_cmd, bench);
  add_benchmark_options(*bench_cmd, bench.benchmark.warmup_steps, bench.benchmark.steps,
                        bench.benchmark.profile_steps);

  SweepOptions sweep;
  auto* sweep_cmd = add_sweep_command(app, sweep);

  std::filesystem::path report_dir;
  bool report_quiet = false;
  auto* report_cmd =
      app.add_subcommand("report", "summarise a sweep folder: table, summary files, plots");
  report_cmd
      ->add_option("dir", report_dir,
                   "a sweep folder (results/sweeps/<name>) or any folder of reports")
      ->required();
  report_cmd->add_flag("--quiet,-q", report_quiet, "print only warnings and the summary path");

  ReproduceOptions reproduce;
  auto* reproduce_cmd =
      app.add_subcommand("reproduce", "rerun a report's embedded config and compare its metrics");
  reproduce_cmd->add_option("report", reproduce.report, "a report.json of a train or benchmark run")
      ->required();
  reproduce_cmd->add_option("--output", reproduce.output, "folder for the rerun's report")
      ->capture_default_str();
  reproduce_cmd->add_flag("--quiet,-q", reproduce.quiet, "print only the comparison");

  try {
    app.parse(with_default_command(argc, argv));
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }

  try {
    install_interrupt_handler();
    if (*run_cmd) return run_command(run);
    if (*validate_cmd) return validate_command(validate);
    if (*describe_cmd) return describe_command(describe);
    if (*eval_cmd) return eval_command(eval, checkpoint);
    if (*devices_cmd) return devices_command(measure_peak);
    if (*bench_cmd) return bench_command(bench);
    if (*sweep_cmd) return sweep_command(sweep);
    if (*report_cmd) return report_command(report_dir, report_quiet);
    if (*reproduce_cmd) return reproduce_command(reproduce);
  } catch (const UserError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const Interrupted& e) {
    std::cerr << e.what() << "\n";
    return 130;
  } catch (const std::bad_alloc&) {
    // The memory plan is checked before a run; this is what it could not foresee.
    std::cerr << "error: out of host memory (std::bad_alloc): lower training.batch_size, "
                 "training.eval_batch_size, model.width or the number of images\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 1;
}

}  // namespace runner
