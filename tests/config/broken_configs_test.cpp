// Broken configs, each with the pieces its error message must contain: file:line:col, field
// path, value found, what was expected, and a "did you mean" where one is cheap.
#include <gtest/gtest.h>

#include "runner/config/load_config.h"
#include "test_support.h"

namespace runner {
namespace {

// A valid config; the cases below are edits of it. Line numbers are stable: 1..10.
const std::string valid =
    "name: broken\n"                                                   // 1
    "dataset: {name: cifar10}\n"                                       // 2
    "model:\n"                                                         // 3
    "  layers:\n"                                                      // 4
    "    - {name: conv1, type: conv2d, out_channels: 6, kernel: 5}\n"  // 5
    "    - {name: flat, type: flatten}\n"                              // 6
    "    - {name: fc, type: linear, out_features: 10}\n"               // 7
    "training:\n"                                                      // 8
    "  batch_size: 4\n"                                                // 9
    "  optimizer: {type: sgd, lr: 0.01}\n";                            // 10

// `valid` with the first occurrence of `from` replaced by `to`.
std::string edit(const std::string& from, const std::string& to) {
  std::string text = valid;
  std::size_t at = text.find(from);
  if (at == std::string::npos) throw std::logic_error("edit: no '" + from + "' in the base config");
  return text.replace(at, from.size(), to);
}

struct BrokenCase {
  std::string name;  // also the file name: <name>.yaml
  std::string yaml;
  std::vector<std::string> overrides;
  std::vector<std::string> expected;     // substrings of the message; "@" stands for "<name>.yaml"
  std::vector<std::string> absent = {};  // substrings it must not contain
};

// Test names in gtest's output instead of bytes.
void PrintTo(const BrokenCase& c, std::ostream* out) {
  *out << c.name;
}

std::vector<BrokenCase> cases() {
  return {
      {"malformed_yaml",
       "name: x\nmodel: {layers: [1, 2\ntraining: {}\n",
       {},
       {"@:", "malformed YAML", "end of sequence flow not found"}},
      {"mapping_in_plain_value",
       "name: x\ndevice: cpu: 2\n",
       {},
       {"@:2:12: malformed YAML: illegal map value"}},
      {"tab_indentation", "name: x\nmodel:\n\t- 1\n", {}, {"@:3:", "malformed YAML"}},
      {"duplicate_yaml_key",
       valid + "training: {}\n",
       {},
       {"@:11:1: training: duplicate key 'training' (first given on line 8)"}},
      {"empty_file",
       "",
       {},
       {"@:1:1: the config is empty", "expected a mapping with keys name, seed"}},
      {"workers_not_a_number",
       edit("dataset: {name: cifar10}", "dataset: {name: cifar10, workers: many}"),
       {},
       {"@:2:35: dataset.workers: found \"many\", expected auto or an integer from 0 to 64"}},
      {"unknown_top_level_key",
       edit("training:", "trainig:"),
       {},
       {"@:8:1: trainig: unknown key (did you mean 'training'?", "known keys: name, seed, device"}},
      {"unknown_layer_key",
       edit("kernel: 5", "kernal: 5"),
       {},
       {"@:5:52: model.layers[0].kernal: unknown key (did you mean 'kernel'? known keys: name, "
        "type, inputs, out_channels, kernel, stride, padding, dilation, groups, bias, init)"},
       {"missing required key 'kernel'"}},
      {"unknown_layer_type",
       edit("type: flatten", "type: flaten"),
       {},
       // Every kind is listed (not spelled out here: adding a kind must not touch this test).
       {"@:6:26: model.layers[1].type: found \"flaten\", expected one of conv2d, max_pool2d, ",
        "(did you mean 'flatten'?)"}},
      {"unknown_layer_type_conv",
       edit("type: conv2d", "type: conv"),
       {},
       {"@:5:27: model.layers[0].type:", "found \"conv\"", "(did you mean 'conv2d'?)"}},
      {"string_for_integer",
       edit("batch_size: 4", "batch_size: four"),
       {},
       {"@:9:15: training.batch_size: found \"four\", expected an integer from 1 to 1048576"}},
      {"quoted_number_stays_string",
       edit("out_channels: 6", "out_channels: \"6\""),
       {},
       {"@:5:49: model.layers[0].out_channels: found \"6\", expected an integer from 1 to "
        "1048576"}},
      {"negative_batch_size",
       edit("batch_size: 4", "batch_size: -4"),
       {},
       {"@:9:15: training.batch_size: found -4, expected an integer from 1 to 1048576"}},
      {"missing_layers",
       "name: x\ndataset: {name: mnist}\nmodel:\n  width: 2\ntraining: {}\n",
       {},
       {"@:4:3: model.layers: missing required key 'layers' (expected a list of 1 to 4096 "
        "mappings)"}},
      {"misspelt_layers",
       edit("  layers:\n", "  layrs:\n"),
       {},
       {"@:4:3: model.layrs: unknown key (did you mean 'layers'? known keys: width, init, blocks, "
        "layers)"},
       {"missing required key"}},
      {"missing_out_channels",
       edit("out_channels: 6, ", ""),
       {},
       {"@:5:7: model.layers[0].out_channels: missing required key 'out_channels' (expected an "
        "integer from 1 to 1048576)"}},
      {"missing_name",
       edit("name: broken\n", ""),
       {},
       {"@:1:1: name: missing required key 'name'"}},
      {"bad_device",
       "device: gpu\n" + valid,
       {},
       {"@:1:9: device: found \"gpu\", expected auto, cpu, cuda or cuda:N"}},
      {"bad_device_index", "device: cuda:x\n" + valid, {}, {"device: found \"cuda:x\""}},
      {"unknown_optimizer",
       edit("type: sgd", "type: adan"),
       {},
       {"@:10:21: training.optimizer.type: found \"adan\", expected one of sgd, adam, adamw (did "
        "you mean 'adam'?)"}},
      {"unknown_optimizer_key",
       edit("lr: 0.01", "lr: 0.01, momentm: 0.9"),
       {},
       {"training.optimizer.momentm: unknown key (did you mean 'momentum'? known keys: type, lr, "
        "momentum"}},
      {"adam_has_no_momentum",
       edit("type: sgd, lr: 0.01", "type: adam, momentum: 0.9"),
       {},
       {"@:10:27: training.optimizer.momentum: unknown key", "known keys: type, lr, beta1"}},
      {"width_zero",
       edit("  layers:\n", "  width: 0\n  layers:\n"),
       {},
       {"@:4:10: model.width: found 0, expected a number > 0"}},
      {"empty_layers",
       "name: x\ndataset: {name: mnist}\nmodel: {layers: []}\ntraining: {}\n",
       {},
       {"@:3:17: model.layers: found [], expected a list of 1 to 4096"}},
      {"kernel_wrong_length",
       edit("kernel: 5", "kernel: [5]"),
       {},
       {"model.layers[0].kernel: found [5], expected an integer from 1 to 16384 or a list of 2 "
        "integers from 1 to 16384"}},
      {"kernel_zero_in_list",
       edit("kernel: 5", "kernel: [5, 0]"),
       {},
       {"@:5:64: model.layers[0].kernel[1]: found 0, expected an integer from 1 to 16384"}},
      {"bad_layer_name",
       edit("name: flat", "name: 2flat"),
       {},
       {"model.layers[1].name: found \"2flat\", expected a name (letters, digits and '_', not "
        "starting with a digit"}},
      {"inputs_not_a_list",
       edit("type: flatten}", "type: flatten, inputs: conv1}"),
       {},
       {"model.layers[1].inputs: found \"conv1\", expected a list of 1 to 64 names (letters"}},
      {"unknown_dataset",
       edit("name: cifar10", "name: cifar_10"),
       {},
       {"@:2:17: dataset.name: found \"cifar_10\"", "(did you mean 'cifar10'?)"}},
      {"normalize_length",
       edit("{name: cifar10}", "{name: cifar10, normalize: {mean: [0.5], std: [1, 1, 1]}}"),
       {},
       {"@:2:44: dataset.normalize.mean: found 1 value, expected 3 (one per channel of cifar10)"}},
      {"normalize_length_synthetic",
       edit("{name: cifar10}",
            "{name: synthetic, synthetic: {channels: 1}, normalize: {mean: [0.5], std: [1, 1]}}"),
       {},
       {"dataset.normalize.std: found 2 values, expected 1 (one per channel of synthetic)"}},
      {"duplicate_layer_name",
       edit("name: fc,", "name: conv1,"),
       {},
       {"@:7:14: model.layers[2].name: duplicate layer name 'conv1' (first used by model.layers[0] "
        "on line 5"}},
      {"download_fashion_mnist",
       edit("{name: cifar10}", "{name: fashion_mnist, download: true}"),
       {},
       {"@:2:42: dataset.download: download is not available for fashion_mnist (only for cifar10, "
        "cifar100)"}},
      {"every_unknown_key_of_a_mapping",
       edit("out_channels: 6", "out_chanels: 6, strid: 1"),
       {},
       {"@:5:35: model.layers[0].out_chanels: unknown key (did you mean 'out_channels'?",
        "@:5:51: model.layers[0].strid: unknown key (did you mean 'stride'?"},
       {"missing required key"}},
      {"two_problems",
       edit("kernel: 5", "kernal: 5").append("  epochs: 0\n"),
       {},
       {"model.layers[0].kernal: unknown key", "\n",
        "training.epochs: found 0, expected an "
        "integer from 1 to 1000000"}},
      {"set_bad_path",
       valid,
       {"training..batch_size=3"},
       {"--set training..batch_size=3: 'training..batch_size' is not a field path"}},
      {"set_without_value",
       valid,
       {"training.batch_size"},
       {"--set training.batch_size: expected PATH=VALUE"}},
      {"set_index_out_of_range",
       valid,
       {"model.layers[3].kernel=3"},
       {"--set model.layers[3].kernel=3: model.layers: index 3 is out of range: model.layers has 3 "
        "item(s) (use 0 to 2)"}},
      {"set_through_scalar",
       valid,
       {"training.batch_size.x=1"},
       {"--set training.batch_size.x=1: training.batch_size: cannot set key 'x': "
        "training.batch_size is a number, not a mapping"}},
      {"set_index_into_mapping",
       valid,
       {"training[0]=1"},
       {"cannot index [0]: training is a mapping"}},
      {"set_invalid_value",
       valid,
       {"training.batch_size=0"},
       {"--set training.batch_size=0: training.batch_size: found 0, expected an integer from 1 to "
        "1048576"}},
      // Hardening: values no experiment has, each refused with its field (issue 11).
      {"nan_learning_rate",
       edit("lr: 0.01", "lr: .nan"),
       {},
       {"@:10:30: training.optimizer.lr: found .nan, expected a finite number"}},
      {"infinite_momentum",
       edit("lr: 0.01", "lr: 0.01, momentum: -.Inf"),
       {},
       {"training.optimizer.momentum: found -.Inf, expected a finite number"}},
      {"number_beyond_double",
       edit("lr: 0.01", "lr: 1e999"),
       {},
       {"training.optimizer.lr: found 1e999, expected a finite number (this one is out of range)"}},
      {"integer_of_400_digits",
       edit("name: broken\n", "name: broken\nseed: " + std::string(400, '7') + "\n"),
       {},
       {"@:2:7: seed: found 7777777777777777... (400 characters), expected a finite number"}},
      {"set_nan",
       valid,
       {"training.optimizer.lr=.nan"},
       {"--set training.optimizer.lr=.nan: training.optimizer.lr: found .nan, expected a finite "
        "number"}},
      {"set_nan_in_list",
       valid,
       {"dataset.normalize={mean: [0.5, .nan, 0.5], std: [1, 1, 1]}"},
       {"dataset.normalize.mean[1]: found .nan"}},
      {"width_astronomic",
       edit("  layers:", "  width: 1e300\n  layers:"),
       {},
       {"model.width: found 1e+300, expected a number > 0 and <= 1024"}},
      {"out_features_int_max",
       edit("out_features: 10", "out_features: 2147483647"),
       {},
       {"model.layers[2].out_features: found 2147483647, expected an integer from 1 to 1048576"}},
      {"padding_two_billion",
       edit("kernel: 5", "kernel: 5, padding: 2000000000"),
       {},
       {"model.layers[0].padding: found 2000000000, expected an integer from 0 to 16384"}},
      {"name_too_long",
       edit("name: broken", "name: " + std::string(300, 'n')),
       {},
       {"@:1:7: name: found \"nnnn", "at most 100 characters"}},
      {"name_of_100000_characters",
       edit("name: broken", "name: " + std::string(100000, 'n')),
       {},
       {"@:1:7: name: found a text of 100000 characters, expected at most 4096"}},
      {"set_unknown_key",
       valid,
       {"training.optimizer.momentm=0.9"},
       {"--set training.optimizer.momentm=0.9: training.optimizer.momentm: unknown key (did you "
        "mean 'momentum'?"}},
      // Validation, early stopping and the best checkpoint.
      {"early_stopping_without_validation",
       valid + "  early_stopping: {monitor: val_accuracy}\n",
       {},
       {"@:11:",
        "training.early_stopping.monitor: monitors val_accuracy, but the run has no "
        "validation set",
        "set dataset.validation_split (e.g. 0.1)"}},
      {"checkpoint_monitor_without_validation",
       valid + "checkpoint: {path: m.safetensors, monitor: val_loss}\n",
       {},
       {"@:11:", "checkpoint.monitor: monitors val_loss, but the run has no validation set",
        "dataset.validation_split"}},
      {"checkpoint_mode_without_monitor",
       edit("{name: cifar10}", "{name: cifar10, validation_split: 0.1}") +
           "checkpoint: {path: m.safetensors, mode: max}\n",
       {},
       {"@:11:", "checkpoint.mode: a mode without a monitor", "expected checkpoint.monitor"}},
      {"checkpoint_monitor_without_path",
       edit("{name: cifar10}", "{name: cifar10, validation_split: 0.1}") +
           "checkpoint: {path: '', monitor: val_accuracy}\n",
       {},
       {"@:11:",
        "checkpoint.path: found '', but checkpoint.monitor asks to keep the best weights"}},
      {"validation_split_of_one",
       edit("{name: cifar10}", "{name: cifar10, validation_split: 1}"),
       {},
       {"@:2:", "dataset.validation_split: found 1"}},
      {"early_stopping_monitor_unknown",
       edit("{name: cifar10}", "{name: cifar10, validation_split: 0.1}") +
           "  early_stopping: {monitor: val_acc}\n",
       {},
       {"@:11:",
        "training.early_stopping.monitor: found \"val_acc\", expected a figure of the "
        "validation set (dataset.validation_split), measured after every epoch: val_accuracy, "
        "val_loss"}},
      {"early_stopping_without_monitor",
       edit("{name: cifar10}", "{name: cifar10, validation_split: 0.1}") +
           "  early_stopping: {patience: 2}\n",
       {},
       {"@:11:", "training.early_stopping", "missing required key 'monitor'"}},
  };
}

class BrokenConfig : public ::testing::TestWithParam<BrokenCase> {};

TEST_P(BrokenConfig, MessageSaysWhereWhatAndWhy) {
  const BrokenCase& c = GetParam();
  testing::TempDir dir;
  auto file = dir.write(c.name + ".yaml", c.yaml);
  try {
    Experiment e = load_experiment(file, c.overrides);
    FAIL() << "no error for " << c.name << "; resolved:\n" << e.resolved.dump(2);
  } catch (const UserError& error) {
    std::string message = error.what();
    for (std::string expected : c.expected) {
      if (auto at = expected.find('@'); at != std::string::npos) {
        expected.replace(at, 1, c.name + ".yaml");
      }
      EXPECT_NE(message.find(expected), std::string::npos)
          << "expected: " << expected << "\nmessage:  " << message;
    }
    for (const std::string& absent : c.absent) {
      EXPECT_EQ(message.find(absent), std::string::npos)
          << "not expected: " << absent << "\nmessage:  " << message;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Table, BrokenConfig, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

TEST(BrokenConfig, MissingFileIsNamed) {
  testing::TempDir dir;
  try {
    load_experiment(dir / "nope.yaml", {});
    FAIL() << "no error";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("nope.yaml: not found, expected a YAML config file"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace runner
