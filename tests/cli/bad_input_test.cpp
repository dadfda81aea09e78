// End-to-end bad inputs: each broken config, data file, checkpoint or command line must give
// exit code 2 and a message naming the file, the field or layer, and what was expected.
#include <gtest/gtest.h>

#include <fstream>

#include "../data/image_writers.h"
#include "test_support.h"

namespace runner::testing {
namespace {

// A small valid config on synthetic data; cases replace parts of it.
const char* kBase = R"(name: bad_input
seed: 0
device: cpu
dataset:
  name: synthetic
  synthetic: {channels: 1, height: 12, width: 12, classes: 4, train_count: 32, test_count: 8}
model:
  layers:
    - {name: conv1, type: conv2d, out_channels: 4, kernel: 3}
    - {name: relu1, type: relu}
    - {name: flat, type: flatten}
    - {name: fc, type: linear, out_features: 4}
training:
  epochs: 1
  batch_size: 8
  optimizer: {type: sgd, lr: 0.01}
)";

std::string replace(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  if (at == std::string::npos)
    throw std::logic_error("case does not match the base config: " + from);
  return text.replace(at, from.size(), to);
}

struct BadInput {
  std::string name;
  std::string config;                 // written to <tmp>/config.yaml (empty: none)
  std::string arguments;              // {config} and {tmp} are replaced
  std::vector<std::string> expected;  // substrings of the output
  int exit_code = 2;
};

std::string layers(const std::string& body) {
  return replace(kBase, R"(    - {name: conv1, type: conv2d, out_channels: 4, kernel: 3}
    - {name: relu1, type: relu}
    - {name: flat, type: flatten}
    - {name: fc, type: linear, out_features: 4}
)",
                 body);
}

// A csv dataset at {tmp}/csv of 12x12 grey images and four classes; prepare_files writes its
// train.csv per case (csv_rows).
const std::string kCsvDataset = replace(
    kBase,
    "  name: synthetic\n  synthetic: {channels: 1, height: 12, width: 12, classes: 4, "
    "train_count: 32, test_count: 8}",
    "  name: csv\n  root: {tmp}/csv\n  image_size: 12\n  channels: 1\n  cache: {tmp}/cache");

// An image folder at {tmp}/images of 12x12 grey images of two classes (cat, dog); prepare_files
// writes it per case (folder_).
const std::string kFolderDataset = replace(
    replace(kBase,
            "  name: synthetic\n  synthetic: {channels: 1, height: 12, width: 12, classes: 4, "
            "train_count: 32, test_count: 8}",
            "  name: image_folder\n  root: {tmp}/images\n  image_size: 12\n  channels: 1\n  cache: "
            "{tmp}/cache"),
    "out_features: 4}", "out_features: 2}");

// Batch norm on the 1x1 maps a global average pool leaves.
const char* kBatchNormAfterPooling =
    R"(    - {name: conv1, type: conv2d, out_channels: 4, kernel: 3}
    - {name: relu1, type: relu}
    - {name: pool, type: global_avg_pool2d}
    - {name: bn, type: batch_norm2d}
    - {name: flat, type: flatten}
    - {name: fc, type: linear, out_features: 4}
)";

// Top-level fields x0 .. x<levels>, each the previous one twice: 16 characters, then 32, ...
std::string doubling_references(int levels) {
  std::string yaml = "x0: abcdefghabcdefgh\n";
  for (int i = 1; i <= levels; ++i) {
    yaml += "x" + std::to_string(i) + ": ${x" + std::to_string(i - 1) + "}${x" +
            std::to_string(i - 1) + "}\n";
  }
  return yaml;
}

std::vector<BadInput> cases() {
  const std::string run = "run {config} --output {tmp}/out";
  return {
      {"malformed_yaml",
       replace(kBase, "seed: 0", "seed: [0"),
       run,
       {"config.yaml:3:7", "malformed YAML"}},
      {"unknown_top_level_key",
       replace(kBase, "seed: 0", "sead: 0"),
       run,
       {"config.yaml:2:1", "sead", "did you mean 'seed'"}},
      {"unknown_layer_key",
       replace(kBase, "kernel: 3}", "kernal: 3}"),
       run,
       {"model.layers[0].kernal", "did you mean 'kernel'"}},
      {"unknown_layer_type",
       replace(kBase, "type: relu}", "type: relux}"),
       run,
       {"model.layers[1].type", "did you mean 'relu'"}},
      {"wrong_type",
       replace(kBase, "batch_size: 8", "batch_size: eight"),
       run,
       {"training.batch_size", "\"eight\"", "integer"}},
      {"negative_batch",
       replace(kBase, "batch_size: 8", "batch_size: -8"),
       run,
       {"training.batch_size", "-8"}},
      {"missing_out_channels",
       replace(kBase, "out_channels: 4, ", ""),
       run,
       {"model.layers[0]", "out_channels"}},
      {"impossible_shape",
       replace(kBase, "kernel: 3}", "kernel: 13}"),
       run,
       {"model.layers[0]", "conv1", "input 1x12x12 is smaller than kernel 13x13"}},
      {"missing_input_layer",
       replace(kBase, "{name: relu1, type: relu}", "{name: relu1, type: relu, inputs: [conv]}"),
       run,
       {"model.layers[1].inputs[0]", "no layer named 'conv'", "did you mean 'conv1'"}},
      {"cycle",
       layers("    - {name: a, type: relu, inputs: [b]}\n    - {name: b, type: relu, inputs: [a]}\n"
              "    - {name: flat, type: flatten, inputs: [b]}\n    - {name: fc, type: linear, "
              "out_features: 4}\n"),
       run,
       {"model.layers[1]", "cycle: b -> a -> b"}},
      {"unused_layer",
       layers("    - {name: side, type: relu, inputs: [input]}\n    - {name: flat, type: flatten, "
              "inputs: [input]}\n"
              "    - {name: fc, type: linear, out_features: 4}\n"),
       run,
       {"model.layers[0]", "'side' does not feed the output layer 'fc'"}},
      {"linear_needs_flat_input",
       layers("    - {name: conv1, type: conv2d, out_channels: 4, kernel: 3}\n"
              "    - {name: fc, type: linear, out_features: 4}\n"),
       run,
       {"model.layers[1]", "fc", "needs a flat input, got 4x10x10", "flatten"}},
      {"classifier_size",
       replace(kBase, "out_features: 4}", "out_features: 5}"),
       run,
       {"model.layers[3]", "'fc' gives 5 values", "4 classes"}},
      {"add_shape_mismatch",
       layers("    - {name: a, type: conv2d, out_channels: 4, kernel: 3}\n"
              "    - {name: b, type: conv2d, out_channels: 2, kernel: 3, inputs: [input]}\n"
              "    - {name: s, type: add, inputs: [a, b]}\n    - {name: flat, type: flatten}\n"
              "    - {name: fc, type: linear, out_features: 4}\n"),
       run,
       {"model.layers[2]", "inputs must have one shape", "4x10x10", "2x10x10"}},
      {"add_one_input",
       layers("    - {name: a, type: conv2d, out_channels: 4, kernel: 3}\n"
              "    - {name: s, type: add}\n    - {name: flat, type: flatten}\n"
              "    - {name: fc, type: linear, out_features: 4}\n"),
       run,
       {"model.layers[1]", "takes 2 to 8 input(s), got 1"}},
      {"unknown_device", replace(kBase, "device: cpu", "device: tpu"), run, {"device", "tpu"}},
      {"cuda_not_built",
       replace(kBase, "device: cpu", "device: cuda:0"),
       run,
       {"cuda:0", "not usable"}},
      {"missing_cifar_files",
       replace(kBase,
               "  name: synthetic\n  synthetic: {channels: 1, height: 12, width: 12, classes: 4, "
               "train_count: 32, test_count: 8}",
               "  name: cifar10\n  root: {tmp}/nowhere"),
       run + " --set model.layers[3].out_features=10",
       {"nowhere", "cifar-10-binary.tar.gz"}},
      {"truncated_idx_file", "", "", {"t10k-labels-idx1-ubyte", "expected"}},
      {"corrupt_checkpoint",
       kBase,
       "eval --checkpoint {tmp}/broken.safetensors {config}",
       {"broken.safetensors", "not a valid safetensors checkpoint"}},
      {"checkpoint_of_another_model",
       kBase,
       "eval --checkpoint {tmp}/other.safetensors {config}",
       {"other.safetensors", "does not fit this model", "conv1.weight"}},
      {"missing_config", "", "run {tmp}/absent.yaml", {"absent.yaml", "not found"}},
      {"bad_override", kBase, "run {config} --set training.batch_size", {"training.batch_size"}},
      {"unknown_option", kBase, "run {config} --sett x=1", {"--sett"}},
      // Issue 11: these crashed, or were accepted and then killed by the kernel.
      {"long_seed_validates_without_crash",
       replace(kBase, "seed: 0", "seed: " + std::string(100000, '9')),
       "validate {config}",
       {"config.yaml:2:7: seed: found a text of 100000 characters, expected at most 4096"}},
      {"synthetic_data_larger_than_memory",
       replace(kBase, "height: 12, width: 12, classes: 4, train_count: 32",
               "height: 4000, width: 4000, classes: 4, train_count: 100000000"),
       "validate {config}",
       {"config.yaml: the run needs about", "more than this machine's"}},
      {"config_is_a_device", "", "validate /dev/zero", {"/dev/zero: is not a regular file"}},
      // Issue 36: validate said valid where run refused.
      {"validate_fp16_on_the_cpu",
       kBase,
       "validate {config} --set training.precision=fp16",
       {"config.yaml: training.precision: found fp16, but cpu", "cannot run it"}},
      {"steps_zero",
       kBase,
       "bench {config} --steps 0",
       {"--steps: found 0, expected a whole number from 1 to 100000000"}},
      {"seed_beyond_64_bits",
       kBase,
       "sweep {config} --grid training.batch_size=4,8 --dry-run --seed 99999999999999999999999",
       {"--seed: found 99999999999999999999999, expected a whole number from 0 to"}},
      {"reproduce_a_device", "", "reproduce /dev/zero", {"/dev/zero: is not a regular file"}},
      {"reproduce_not_json",
       "{not json",
       "reproduce {config}",
       {"config.yaml: not a JSON report: parse error at line 1, column 3"}},
      {"reproduce_nested_100000_deep",  // overflowed the stack of a recursive dump (issue 24)
       std::string(100'000, '[') + std::string(100'000, ']'),
       "reproduce {config}",
       {"config.yaml: not a JSON report: the JSON nests deeper than 64 levels"}},
      {"reproduce_wrong_types",
       "{\"mode\": 3, \"status\": []}",
       "reproduce {config}",
       {"config.yaml: mode: found 3, expected one of train, eval, benchmark"}},
      {"nan_override",
       kBase,
       "validate {config} --set training.optimizer.lr=.nan",
       {"training.optimizer.lr: found .nan, expected a finite number"}},
      // Issue 24: limits that references and the command line went around.
      {"interpolation_that_doubles_at_every_level",
       kBase + doubling_references(60),
       "validate {config}",
       {"config.yaml:",
        "x9: the text after its references are replaced is 8192 characters long, "
        "more than the 4096"}},
      {"checkpoint_path_is_a_folder",
       std::string(kBase) + "checkpoint: {path: {tmp}, allow_outside_run_folder: true}\n",
       run,
       {"checkpoint.path: {tmp} is a folder, expected the path of a file to write"}},
      {"checkpoint_path_is_a_device",
       std::string(kBase) + "checkpoint: {path: /dev/null, allow_outside_run_folder: true}\n",
       run,
       {"checkpoint.path: /dev/null is a device, expected the path of a file to write (the "
        "runner replaces only regular files)"}},
      {"sweep_steps_beyond_an_int",
       "name: s\nbase: " + (source_dir() / "configs" / "tiny_synthetic.yaml").string() +
           "\nmode: benchmark\nbenchmark: {steps: 2147483648}\n"
           "sweep: {grid: {training.batch_size: [4]}}\n",
       "sweep {config} --dry-run --output {tmp}/out",
       {"config.yaml:4:20: benchmark.steps: found 2147483648, expected"}},
      {"validate_without_the_data_files",
       replace(kBase,
               "  name: synthetic\n  synthetic: {channels: 1, height: 12, width: 12, classes: 4, "
               "train_count: 32, test_count: 8}",
               "  name: fashion_mnist\n  root: {tmp}"),
       "validate {config} --set model.layers[3].out_features=10",
       {"dataset.root {tmp} lacks 4 of the data files (train-images-idx3-ubyte, "
        "train-labels-idx1-ubyte, t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte)"}},
      // A CSV from elsewhere naming a file outside the dataset (its first bytes once printed).
      {"csv_row_outside_the_root",
       kCsvDataset,
       run,
       {"{tmp}/csv/train.csv: line 4: path '/etc/hostname' leads outside the dataset root "
        "{tmp}/csv (an absolute path) (set dataset.allow_outside_root: true"}},
      // One name among class numbers once made every label a name sorted as text (10 before 2).
      {"csv_mixed_labels",
       kCsvDataset,
       run,
       {"{tmp}/csv/train.csv: line 3: found label 'cat', a class name, but line 1 has the class "
        "number '0' (the labels of a file are either all class numbers"}},
      {"csv_negative_label",
       kCsvDataset,
       run,
       {"{tmp}/csv/train.csv: line 2: found label -1, expected a class number of 0 or more"}},
      // A NUL byte once cut the path there, and another file was read.
      {"csv_nul_in_a_path",
       kCsvDataset,
       run,
       {"{tmp}/csv/train.csv: line 2: holds a NUL byte, which no path or label may hold"}},
      // `validate` once called valid what `run` refuses (issue 36, item 13): the split is
      // checked on the labels the format lists, without decoding an image.
      {"validate_split_that_leaves_a_class_nothing_to_train_on",
       replace(kBase, "test_count: 8}", "test_count: 8}\n  validation_split: 0.9999"),
       "validate {config}",
       {"config.yaml: dataset.validation_split: found 0.9999, which holds out all",
        "and leaves none to train on"}},
      {"validate_split_that_holds_out_nothing",
       replace(kBase, "test_count: 8}", "test_count: 8}\n  validation_split: 0.0001"),
       "validate {config}",
       {"config.yaml: dataset.validation_split: found 0.0001, which holds out no image of the 32 "
        "training images"}},
      // The training batches are checked on what the split leaves (32 images, 15 held out).
      {"validate_batch_norm_on_a_last_batch_of_one_after_the_split",
       replace(layers(kBatchNormAfterPooling), "test_count: 8}",
               "test_count: 8}\n  validation_split: 0.45"),
       "validate {config}",
       {"model.layers[3]: bn (batch_norm2d): the 17 training images in batches of "
        "training.batch_size 8 end with a batch of 1 image"}},
      {"csv_validate_one_image_per_class_with_a_split",
       replace(kCsvDataset, "cache\n", "cache\n  validation_split: 0.5\n"),
       "validate {config}",
       {"dataset.validation_split: found 0.5, which holds out all 1 training image of class '0' "
        "and leaves none to train on"}},
      {"csv_validate_without_test_csv",
       kCsvDataset,
       "validate {config}",
       {"{tmp}/csv/test.csv: not found, expected a CSV file of path,label rows"}},
      {"csv_test_null_without_a_validation_set",
       replace(kCsvDataset, "cache\n", "cache\n  test: null\n"),
       "validate {config}",
       {"config.yaml:10:3: dataset.test: found null (no test set), and the run has no validation "
        "set either: nothing would measure the model"}},
      // An empty split is named by its file and field (once ': the test split holds no images').
      {"csv_every_training_image_skipped",
       replace(kCsvDataset, "cache\n", "cache\n  on_bad_file: skip\n"),
       run,
       {"{tmp}/csv/train.csv: the training split (dataset.train) holds no images, expected at "
        "least one"}},
      // Labels up to 99,999 once ended in std::bad_alloc blaming the batch size; the class count
      // is checked against the model before anything is allocated, saying where it comes from.
      {"csv_class_numbers_up_to_99999",
       kCsvDataset,
       "validate {config}",
       {"model.layers[3]: the output layer 'fc' gives 4 values per image, but the dataset has "
        "100000 classes because {tmp}/csv/train.csv's largest class number is 99999 (line 3), "
        "and label k is output k"}},
      // A 16-bit RGBA PNG of 16384x10922 pixels (under the pixel cap) once took 1.9 GB to decode,
      // in each decoding worker; its header alone is refused now.
      {"csv_decompression_bomb",
       kCsvDataset,
       run,
       {"{tmp}/csv/bomb.png: PNG image of 16384x10922 pixels needs ",
        "more than dataset.max_image_bytes (536870912 bytes); raise dataset.max_image_bytes to "
        "read it"}},
      // Decoding holds up to dataset.max_image_bytes in each worker: the memory plan counts it.
      {"csv_decoding_past_the_machines_memory",
       replace(kCsvDataset, "  cache: {tmp}/cache",
               "  cache: {tmp}/cache\n  max_image_bytes: 1099511627776\n  workers: 4"),
       "validate {config}",
       {"config.yaml: the run needs about",
        "decoding images 4096.0 GiB: 4 workers of up to "
        "dataset.max_image_bytes 1099511627776 each), more than this machine's",
        "(lower dataset.workers or dataset.max_image_bytes"}},
      {"long_tag_option",
       kBase,
       run + " --tag note=" + std::string(5000, 'x'),
       {"--tag note: the value is 5000 characters long, expected at most 4096"}},
      // Batch norm after global pooling sees one value per channel and image: a batch of one
      // image gives it a single value, which PyTorch refuses in training.
      {"batch_norm_on_one_value_per_channel",
       replace(layers(kBatchNormAfterPooling), "batch_size: 8", "batch_size: 1"),
       run,
       {"config.yaml:12:7: model.layers[3]: bn (batch_norm2d): training.batch_size 1 gives it "
        "batches of 1 image, and its input 4x1x1 then has 1 value per channel in training, "
        "expected more than 1",
        "Expected more than 1 value per channel when training"}},
      {"batch_norm_on_a_last_batch_of_one",
       replace(layers(kBatchNormAfterPooling), "train_count: 32", "train_count: 33"),
       "validate {config}",
       {"model.layers[3]: bn (batch_norm2d): the 33 training images in batches of "
        "training.batch_size 8 end with a batch of 1 image",
        "(one that does not divide 32), or change dataset.train_limit"}},
      // Issue 36, raw and misleading messages. An axis value of the wrong type for `name` was a
      // raw "[json.exception.type_error.302]"; now the point is invalid, naming the value's origin.
      {"sweep_axis_of_the_wrong_type",
       kBase,
       "sweep {config} --grid name=3,[a] --dry-run --output {tmp}/out",
       {"--grid name=3: name: found 3, expected a name of letters",
        "--grid name=[a]: name: found [\"a\"], expected a name of letters"},
       0},
      {"sweep_file_axis_of_the_wrong_type",
       "name: s\nbase: " + (source_dir() / "configs" / "tiny_synthetic.yaml").string() +
           "\nmode: benchmark\nsweep: {grid: {name: [ok, 3]}}\n",
       "sweep {config} --dry-run --output {tmp}/out",
       {"point 2 (name=3) is invalid", "config.yaml:4:27: sweep.grid.name[1]: name: found 3"},
       0},
      // A second document in a --set value was blamed on line 2 of a config file.
      {"set_value_with_an_embedded_document",
       kBase,
       "validate {config} --set 'training.batch_size=8\n---\nx: 1'",
       {"error: --set training.batch_size=8\\n---\\nx: 1: training.batch_size: found the YAML "
        "document marker '---' on line 2 of the value, expected one value"}},
      {"set_value_that_is_a_document_marker",  // read as an empty document: "found null"
       kBase,
       "validate {config} --set name=---",
       {"--set name=---: name: found the YAML document marker '---' on line 1 of the value"}},
      {"grid_value_with_an_embedded_document",
       kBase,
       "sweep {config} --grid 'name=a,b\n---\nc: 1' --dry-run --output {tmp}/out",
       {"error: --grid name=a,b\\n---\\nc: 1: name: found the YAML document marker '---' on "
        "line 2 of the value"}},
      // The message quoted the first byte of 'é' and counted bytes as characters.
      {"expression_with_a_character_of_two_bytes",
       kBase,
       "validate {config} --set 'training.optimizer.lr=${expr:0.1 + 2é}'",
       {"${expr:0.1 + 2é}: unexpected 'é' at character 8 of '0.1 + 2é'"}},
      // A path of 120,000 characters was echoed whole.
      {"path_of_120000_characters",
       "",
       "validate {tmp}/" + std::string(120'000, 'a') + ".yaml",
       {"aaaa...(", " characters)...aaaa", "aaaa.yaml: cannot open: File name too long"}},
      {"batch_norm_on_a_last_batch_of_one_after_train_limit",
       replace(replace(layers(kBatchNormAfterPooling), "train_count: 32", "train_count: 64"),
               "name: synthetic\n", "name: synthetic\n  train_limit: 17\n"),
       "validate {config}",
       {"the 17 training images in batches of training.batch_size 8 end with a batch of 1 "
        "image"}},
      // Issue 36's probe: validate said valid where run refused, or a value changed unseen.
      {"folder_class_linked_to_proc",
       kFolderDataset,
       "validate {config}",
       {"{tmp}/images/train/dog: a folder of the proc pseudo file system (the kernel's, not "
        "files): expected a folder of images"}},
      {"folder_validation_and_split",
       kFolderDataset,
       "validate {config} --set dataset.validation=train --set dataset.validation_split=0.2",
       {"dataset.validation_split: 0.2 beside dataset.validation ('train')"}},
      {"seed_beyond_2_to_the_53",
       kBase,
       "validate {config} --set 'seed=${expr:9007199254740993}'",
       {"the integer 9007199254740993 is beyond 2^53 (9007199254740992)"}},
  };
}

std::string substitute(std::string text, const TempDir& tmp, const std::string& config) {
  for (auto [key, value] :
       {std::pair<std::string, std::string>{"{config}", config}, {"{tmp}", tmp.path().string()}}) {
    for (auto at = text.find(key); at != std::string::npos; at = text.find(key))
      text.replace(at, key.size(), value);
  }
  return text;
}

// The train.csv of each csv_ case (its test.csv is its first row).
std::string csv_rows(const std::string& name) {
  if (name == "csv_row_outside_the_root") return "a.png,0\nb.png,1\nc.png,2\n/etc/hostname,3\n";
  if (name == "csv_mixed_labels") return "a.png,0\nb.png,3\nc.png,cat\n";
  if (name == "csv_negative_label") return "a.png,0\nb.png,-1\nc.png,3\n";
  if (name == "csv_class_numbers_up_to_99999") return "a.png,0\nb.png,1\nc.png,99999\n";
  if (name == "csv_nul_in_a_path") return std::string("a.png,0\nb.png\0.txt,3\n", 21);
  if (name == "csv_validate_one_image_per_class_with_a_split" ||
      name == "csv_validate_without_test_csv" || name == "csv_test_null_without_a_validation_set" ||
      name == "csv_every_training_image_skipped") {
    return "a.png,0\nb.png,1\nc.png,2\nd.png,3\n";
  }
  if (name == "csv_decompression_bomb") return "bomb.png,0\nbomb.png,3\n";
  if (name == "csv_decoding_past_the_machines_memory")
    return "a.png,0\nb.png,1\nc.png,2\nd.png,3\n";
  throw std::logic_error("no rows for " + name);
}

// Files some cases need: a truncated IDX label file, a corrupt checkpoint, another model's one,
// a CSV's rows.
void prepare_files(const BadInput& c, const TempDir& tmp, std::string& arguments) {
  if (c.name.starts_with("csv_")) {
    const std::string rows = csv_rows(c.name);
    tmp.write("csv/train.csv", rows);
    if (c.name != "csv_validate_without_test_csv") {
      tmp.write("csv/test.csv", rows.substr(0, rows.find('\n') + 1));
    }
  }
  if (c.name.starts_with("folder_")) {
    for (const char* image :
         {"images/train/cat/a.png", "images/test/cat/a.png", "images/test/dog/a.png"}) {
      testing::write_bytes(tmp / image,
                           testing::png_file(12, 12, 0, 8, std::vector<std::uint16_t>(144, 7)));
    }
    if (c.name == "folder_class_linked_to_proc") {
      std::filesystem::create_directory_symlink("/proc", tmp / "images/train/dog");
    } else {
      testing::write_bytes(tmp / "images/train/dog/b.png",
                           testing::png_file(12, 12, 0, 8, std::vector<std::uint16_t>(144, 9)));
    }
  }
  if (c.name == "csv_decompression_bomb") {
    tmp.write("csv/bomb.png", png_claiming(16384, 10922, 6, 16));  // 16-bit RGBA
  }
  if (c.name == "truncated_idx_file") {
    auto root = tmp.path() / "mnist";
    std::filesystem::create_directories(root);
    auto write_idx = [&](const std::string& name, std::uint32_t magic,
                         std::vector<std::uint32_t> dims, std::size_t payload) {
      std::ofstream out(root / name, std::ios::binary);
      auto be = [&](std::uint32_t v) {
        char b[4] = {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
        out.write(b, 4);
      };
      be(magic);
      for (auto d : dims) be(d);
      out << std::string(payload, '\0');
    };
    write_idx("train-images-idx3-ubyte", 0x803, {2, 28, 28}, 2 * 784);
    write_idx("train-labels-idx1-ubyte", 0x801, {2}, 2);
    write_idx("t10k-images-idx3-ubyte", 0x803, {2, 28, 28}, 2 * 784);
    write_idx("t10k-labels-idx1-ubyte", 0x801, {2}, 1);  // one label short
    std::string config =
        replace(replace(kBase,
                        "  name: synthetic\n  synthetic: {channels: 1, height: 12, width: 12, "
                        "classes: 4, train_count: 32, test_count: 8}",
                        "  name: mnist\n  root: " + root.string()),
                "out_features: 4}", "out_features: 10}");
    arguments =
        "run " + tmp.write("config.yaml", config).string() + " --output " + (tmp / "out").string();
  }
  if (c.name == "corrupt_checkpoint") tmp.write("broken.safetensors", "not a checkpoint at all");
  if (c.name == "checkpoint_of_another_model") {
    std::string other =
        replace(kBase, "out_channels: 4, kernel: 3}", "out_channels: 3, kernel: 3}");
    other = replace(other, "name: bad_input", "name: other");
    other += "checkpoint: {path: " + (tmp / "other.safetensors").string() +
             ", allow_outside_run_folder: true}\n";
    auto file = tmp.write("other.yaml", other);
    auto result = run_runner(file.string() + " --quiet --output " + (tmp / "out").string());
    ASSERT_EQ(result.exit_code, 0) << result.output;
  }
}

void PrintTo(const BadInput& c, std::ostream* os) {
  *os << c.name;
}

class BadInputTest : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadInputTest, GivesAClearErrorAndExitCode) {
  const BadInput& c = GetParam();
  TempDir tmp;
  std::string config =
      c.config.empty() ? "" : tmp.write("config.yaml", substitute(c.config, tmp, "")).string();
  std::string arguments = substitute(c.arguments, tmp, config);
  prepare_files(c, tmp, arguments);
  auto result = run_runner(arguments);
  EXPECT_EQ(result.exit_code, c.exit_code) << result.output;
  for (const auto& expected : c.expected) {
    EXPECT_NE(result.output.find(substitute(expected, tmp, config)), std::string::npos)
        << "missing '" << expected << "' in:\n"
        << result.output;
  }
  EXPECT_FALSE(std::filesystem::exists(tmp / "out" / "bad_input"))
      << "a failed start wrote a run folder";
}

INSTANTIATE_TEST_SUITE_P(Table, BadInputTest, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace runner::testing
