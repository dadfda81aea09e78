// What the command line says when a word is not a command or an option is unknown: the nearest
// command, or the --set that the option was probably meant to be.
#pragma once

#include <string>
#include <vector>

namespace runner {

// Whether `arg`, where `runner CONFIG` could stand, is a mistyped command rather than a config:
// a plain word (letters, digits, '-', '_') that names no file.
bool looks_like_command(const std::string& arg);

// "unknown command 'train' (did you mean 'run'?); the commands are: run, validate, ..."
std::string unknown_command_message(const std::string& word,
                                    const std::vector<std::string>& commands);

// The config fields (from schemas/experiment.schema.json) whose last segment is `option` with
// '-' read as '_': {"training.epochs"} for "epochs".
std::vector<std::string> config_fields_named(const std::string& option);

// The message for arguments no option of the command takes, in the order typed: each `--name`
// that is a config field's last segment points to `--set PATH=VALUE`.
std::string unexpected_arguments_message(const std::vector<std::string>& extras);

}  // namespace runner
