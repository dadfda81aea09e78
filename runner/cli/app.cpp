// Command-line parsing and dispatch.
#include "runner/cli/app.h"

#include <cstring>
#include <iostream>
#include <set>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "runner/cli/commands.h"
#include "runner/report/environment.h"
#include "runner/util/errors.h"
#include "runner/util/interrupt.h"

namespace runner {
namespace {

void add_config_options(CLI::App& command, SessionOptions& options) {
  command.add_option("config", options.config, "experiment config (YAML)")->required();
  command.add_option("--set", options.overrides,
                     "override a config value before validation, e.g. training.batch_size=64 "
                     "(repeatable)")
      ->take_all();
  command.add_option("--output", options.output, "folder for run reports")
      ->capture_default_str();
  command.add_flag("--quiet,-q", options.quiet, "print only warnings and the report path");
}

// `runner CONFIG ...` is short for `runner run CONFIG ...`.
std::vector<std::string> with_default_command(int argc, char** argv) {
  static const std::set<std::string> commands = {"run", "validate", "describe", "eval", "devices"};
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0][0] != '-' && !commands.count(args[0])) args.insert(args.begin(), "run");
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
  auto* validate_cmd = app.add_subcommand("validate", "check a config against the schema and shapes");
  add_config_options(*validate_cmd, validate);

  SessionOptions describe;
  auto* describe_cmd = app.add_subcommand("describe", "print each layer's shape, parameters and FLOPs");
  add_config_options(*describe_cmd, describe);

  SessionOptions eval;
  std::filesystem::path checkpoint;
  auto* eval_cmd = app.add_subcommand("eval", "evaluate a checkpoint on the test set");
  add_config_options(*eval_cmd, eval);
  eval_cmd->add_option("--checkpoint", checkpoint, "safetensors checkpoint")->required();

  auto* devices_cmd = app.add_subcommand("devices", "list the CPU and GPUs this runner can use");

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
    if (*devices_cmd) return devices_command();
  } catch (const UserError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 1;
}

}  // namespace runner
