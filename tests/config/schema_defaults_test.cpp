// Every "default" the schema states is what the C++ resolution (runner/config) and the layer
// parsers (runner/graph/layers) use when the key is left out: each is checked on a minimal config
// without the key, and a default added to the schema without a check here fails the test.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>

#include "runner/config/load_config.h"
#include "runner/config/schema_file.h"
#include "runner/graph/dataset_geometry.h"
#include "runner/graph/graph.h"
#include "test_support.h"

namespace runner {
namespace {

using nlohmann::json;

// What the C++ code made of a config: its resolution and its graph.
struct Resolved {
  Experiment experiment;
  Graph graph;
  // The attributes of the layer named "x".
  const LayerAttrs& x() const {
    for (const Node& node : graph.nodes) {
      if (node.name == "x") return node.attrs;
    }
    throw std::runtime_error("no layer x");
  }
};

using Reader = std::function<json(const Resolved&)>;

// A value of the resolved config, by JSON pointer.
Reader resolved(const std::string& pointer) {
  return [pointer](const Resolved& r) {
    return r.experiment.resolved.at(json::json_pointer(pointer));
  };
}

// An (h, w) attribute as the config writes it: one int when both are the same.
json pair(int h, int w) {
  return h == w ? json(h) : json({h, w});
}

struct DefaultCase {
  std::string schema_pointer;  // where the schema states the default
  std::string config;          // a config leaving the key out (YAML)
  Reader value;                // what the C++ code uses instead
};

// Configs that leave every optional key out, but for what each case needs.
std::string config(const std::string& dataset = "{name: synthetic}",
                   const std::string& layers =
                       "[{name: flat, type: flatten}, "
                       "{name: fc, type: linear, out_features: 10}]",
                   const std::string& training = "{}", const std::string& more = "") {
  return "name: d\ndataset: " + dataset + "\nmodel: {layers: " + layers +
         "}\ntraining: " + training + "\n" + more;
}
// An image_folder config needs its class folders (ten, for the classifier of config()).
std::string image_folder_root() {
  const auto root = std::filesystem::temp_directory_path() / "runner-schema-defaults-folder";
  for (int k = 0; k < 10; ++k) {
    std::filesystem::create_directories(root / "train" / ("class" + std::to_string(k)));
  }
  return root.string();
}

// A csv dataset's training file, of ten integer classes (its images are not read).
std::string csv_root() {
  const auto root = std::filesystem::temp_directory_path() / "runner-schema-defaults-csv";
  std::filesystem::create_directories(root);
  std::string rows;
  for (int k = 0; k < 10; ++k)
    rows += "image" + std::to_string(k) + ".png," + std::to_string(k) + "\n";
  std::ofstream(root / "train.csv") << rows;
  return root.string();
}

// Layer x first (reading the images), then a flatten and the classifier.
std::string with_layer(const std::string& x) {
  return config("{name: synthetic}", "[" + x +
                                         ", {name: flat, type: flatten}, "
                                         "{name: fc, type: linear, out_features: 10}]");
}
std::string with_schedule(const std::string& schedule) {
  return config("{name: synthetic}",
                "[{name: flat, type: flatten}, {name: fc, type: linear, out_features: 10}]",
                "{schedule: " + schedule + "}");
}
std::string with_optimizer(const std::string& type) {
  return config("{name: synthetic}",
                "[{name: flat, type: flatten}, {name: fc, type: linear, out_features: 10}]",
                "{optimizer: {type: " + type + "}}");
}

std::vector<DefaultCase> cases() {
  const std::string plain = config();
  const std::string conv = with_layer("{name: x, type: conv2d, out_channels: 4, kernel: 3}");
  const std::string max_pool = with_layer("{name: x, type: max_pool2d, kernel: 2}");
  const std::string avg_pool = with_layer("{name: x, type: avg_pool2d, kernel: 2}");
  const std::string bn = with_layer("{name: x, type: batch_norm2d}");
  const std::string ln = with_layer("{name: x, type: layer_norm}");
  const std::string gn = with_layer("{name: x, type: group_norm, groups: 3}");
  const std::string attention =
      config("{name: synthetic}",
             "[{name: t, type: to_tokens}, {name: x, type: self_attention, heads: 1}, "
             "{name: s, type: token_select}, {name: fc, type: linear, out_features: 10}]");
  const std::string one_cycle = with_schedule("{type: one_cycle}");
  const std::string sgd = with_optimizer("sgd"), adam = with_optimizer("adam");
  const std::string augmented = config(
      "{name: synthetic, augment: [{random_crop: {}}, {horizontal_flip: {}}, "
      "{vertical_flip: {}}]}");
  const std::string recipe = config(
      "{name: synthetic, augment: [{random_resized_crop: {}}, {color_jitter: {}}, "
      "{random_grayscale: {}}, {random_rotation: {degrees: 5}}, {random_affine: {}}, "
      "{gaussian_blur: {kernel_size: 3}}, {random_erasing: {}}, {rand_augment: {}}]}");
  const std::string trivial = config("{name: synthetic, augment: [{trivial_augment_wide: {}}]}");
  const std::string d = "/definitions/";
  auto attr = [](auto field) { return [field](const Resolved& r) { return json(field(r.x())); }; };
  const std::string early_stopping =
      config("{name: synthetic, validation_split: 0.1}",
             "[{name: flat, type: flatten}, {name: fc, type: linear, out_features: 10}]",
             "{early_stopping: {monitor: val_accuracy}}");
  const std::string ema = config(
      "{name: synthetic}",
      "[{name: flat, type: flatten}, {name: fc, type: linear, out_features: 10}]", "{ema: {}}");
  const std::string mixed =
      config("{name: synthetic}",
             "[{name: flat, type: flatten}, {name: fc, type: linear, out_features: 10}]",
             "{mixup: {alpha: 0.2}}");
  auto schedule = [](auto field) {
    return [field](const Resolved& r) { return json(field(r.experiment.training.schedule)); };
  };
  return {
      {"/properties/seed", plain, resolved("/seed")},
      {"/properties/device", plain, resolved("/device")},
      {d + "dataset/properties/download", plain, resolved("/dataset/download")},
      {d + "dataset/properties/shuffle", plain, resolved("/dataset/shuffle")},
      {d + "dataset/properties/sampler", plain,
       [](const Resolved& r) {
         return json(r.experiment.dataset.balanced_sampler ? "balanced" : "random");
       }},
      {d + "dataset/properties/workers", plain, resolved("/dataset/workers")},
      {d + "dataset/properties/train_limit", plain, resolved("/dataset/train_limit")},
      {d + "dataset/properties/test_limit", plain, resolved("/dataset/test_limit")},
      {d + "dataset/properties/validation_split", plain,
       [](const Resolved& r) { return json(r.experiment.dataset.validation_split); }},
      {d + "training/properties/ema/properties/decay", ema, resolved("/training/ema/decay")},
      {d + "training/properties/ema/properties/every", ema, resolved("/training/ema/every")},
      {d + "training/properties/mix/properties/prob", mixed, resolved("/training/mix/prob")},
      {d + "training/properties/mix/properties/switch_prob", mixed,
       resolved("/training/mix/switch_prob")},
      {d + "early_stopping/properties/patience", early_stopping,
       resolved("/training/early_stopping/patience")},
      {d + "early_stopping/properties/min_delta", early_stopping,
       resolved("/training/early_stopping/min_delta")},
      // No files at the default root: the official 100 fine names make 100 classes.
      {d + "dataset/properties/label",
       config("{name: cifar100}",
              "[{name: flat, type: flatten}, {name: fc, type: linear, out_features: 100}]"),
       resolved("/dataset/label")},
      {d + "dataset/properties/channels",
       config("{name: image_folder, image_size: 8, root: " + image_folder_root() + "}"),
       resolved("/dataset/channels")},
      {d + "dataset/properties/on_bad_file",
       config("{name: image_folder, image_size: 8, root: " + image_folder_root() + "}"),
       resolved("/dataset/on_bad_file")},
      {d + "dataset/properties/decode",
       config("{name: image_folder, image_size: 8, root: " + image_folder_root() + "}"),
       [](const Resolved& r) {
         return json(r.experiment.dataset.files.decode_per_epoch ? "per_epoch" : "once");
       }},
      {d + "dataset/properties/jpeg_draft",
       config("{name: image_folder, image_size: 8, root: " + image_folder_root() + "}"),
       [](const Resolved& r) { return json(r.experiment.dataset.files.eval_fit.jpeg_draft); }},
      {d + "dataset/properties/max_image_bytes",
       config("{name: image_folder, image_size: 8, root: " + image_folder_root() + "}"),
       resolved("/dataset/max_image_bytes")},
      {d + "dataset/properties/allow_outside_root",
       config("{name: csv, image_size: 8, root: " + csv_root() + "}"),
       resolved("/dataset/allow_outside_root")},
      {d + "dataset/properties/synthetic/properties/channels", plain,
       resolved("/dataset/synthetic/channels")},
      {d + "dataset/properties/synthetic/properties/height", plain,
       resolved("/dataset/synthetic/height")},
      {d + "dataset/properties/synthetic/properties/width", plain,
       resolved("/dataset/synthetic/width")},
      {d + "dataset/properties/synthetic/properties/classes", plain,
       resolved("/dataset/synthetic/classes")},
      {d + "dataset/properties/synthetic/properties/train_count", plain,
       resolved("/dataset/synthetic/train_count")},
      {d + "dataset/properties/synthetic/properties/test_count", plain,
       resolved("/dataset/synthetic/test_count")},
      {d + "augment_step/properties/random_crop/properties/padding", augmented,
       resolved("/dataset/augment/0/random_crop/padding")},
      {d + "augment_step/properties/horizontal_flip/properties/p", augmented,
       resolved("/dataset/augment/1/horizontal_flip/p")},
      {d + "augment_step/properties/vertical_flip/properties/p", augmented,
       resolved("/dataset/augment/2/vertical_flip/p")},
      {d + "augment_step/properties/random_resized_crop/properties/scale", recipe,
       resolved("/dataset/augment/0/random_resized_crop/scale")},
      {d + "augment_step/properties/random_resized_crop/properties/ratio", recipe,
       resolved("/dataset/augment/0/random_resized_crop/ratio")},
      {d + "augment_step/properties/color_jitter/properties/brightness", recipe,
       resolved("/dataset/augment/1/color_jitter/brightness")},
      {d + "augment_step/properties/color_jitter/properties/contrast", recipe,
       resolved("/dataset/augment/1/color_jitter/contrast")},
      {d + "augment_step/properties/color_jitter/properties/saturation", recipe,
       resolved("/dataset/augment/1/color_jitter/saturation")},
      {d + "augment_step/properties/color_jitter/properties/hue", recipe,
       resolved("/dataset/augment/1/color_jitter/hue")},
      {d + "augment_step/properties/color_jitter/properties/p", recipe,
       resolved("/dataset/augment/1/color_jitter/p")},
      {d + "augment_step/properties/random_grayscale/properties/p", recipe,
       resolved("/dataset/augment/2/random_grayscale/p")},
      {d + "augment_step/properties/random_rotation/properties/fill", recipe,
       resolved("/dataset/augment/3/random_rotation/fill")},
      {d + "augment_step/properties/random_affine/properties/degrees", recipe,
       resolved("/dataset/augment/4/random_affine/degrees")},
      {d + "augment_step/properties/random_affine/properties/fill", recipe,
       resolved("/dataset/augment/4/random_affine/fill")},
      {d + "augment_step/properties/gaussian_blur/properties/sigma", recipe,
       resolved("/dataset/augment/5/gaussian_blur/sigma")},
      {d + "augment_step/properties/gaussian_blur/properties/p", recipe,
       resolved("/dataset/augment/5/gaussian_blur/p")},
      {d + "augment_step/properties/random_erasing/properties/p", recipe,
       resolved("/dataset/augment/6/random_erasing/p")},
      {d + "augment_step/properties/random_erasing/properties/scale", recipe,
       resolved("/dataset/augment/6/random_erasing/scale")},
      {d + "augment_step/properties/random_erasing/properties/ratio", recipe,
       resolved("/dataset/augment/6/random_erasing/ratio")},
      {d + "augment_step/properties/random_erasing/properties/value", recipe,
       resolved("/dataset/augment/6/random_erasing/value")},
      {d + "augment_step/properties/rand_augment/properties/num_ops", recipe,
       resolved("/dataset/augment/7/rand_augment/num_ops")},
      {d + "augment_step/properties/rand_augment/properties/magnitude", recipe,
       resolved("/dataset/augment/7/rand_augment/magnitude")},
      {d + "augment_step/properties/rand_augment/properties/num_magnitude_bins", recipe,
       resolved("/dataset/augment/7/rand_augment/num_magnitude_bins")},
      {d + "augment_step/properties/rand_augment/properties/fill", recipe,
       resolved("/dataset/augment/7/rand_augment/fill")},
      {d + "augment_step/properties/trivial_augment_wide/properties/num_magnitude_bins", trivial,
       resolved("/dataset/augment/0/trivial_augment_wide/num_magnitude_bins")},
      {d + "augment_step/properties/trivial_augment_wide/properties/fill", trivial,
       resolved("/dataset/augment/0/trivial_augment_wide/fill")},
      {d + "model/properties/width", plain, resolved("/model/width")},
      {d + "model/properties/init", plain, resolved("/model/init")},
      {d + "conv2d/properties/stride", conv,
       attr([](const LayerAttrs& a) { return pair(a.stride_h, a.stride_w); })},
      {d + "conv2d/properties/padding", conv,
       attr([](const LayerAttrs& a) { return pair(a.pad_h, a.pad_w); })},
      {d + "conv2d/properties/dilation", conv,
       attr([](const LayerAttrs& a) { return pair(a.dilation_h, a.dilation_w); })},
      {d + "conv2d/properties/groups", conv, attr([](const LayerAttrs& a) { return a.groups; })},
      {d + "conv2d/properties/bias", conv, attr([](const LayerAttrs& a) { return a.bias; })},
      {d + "max_pool2d/properties/padding", max_pool,
       attr([](const LayerAttrs& a) { return pair(a.pad_h, a.pad_w); })},
      {d + "avg_pool2d/properties/padding", avg_pool,
       attr([](const LayerAttrs& a) { return pair(a.pad_h, a.pad_w); })},
      {d + "global_avg_pool2d/properties/flatten", with_layer("{name: x, type: global_avg_pool2d}"),
       attr([](const LayerAttrs& a) { return a.flatten; })},
      {d + "batch_norm2d/properties/eps", bn, attr([](const LayerAttrs& a) { return a.eps; })},
      {d + "batch_norm2d/properties/momentum", bn,
       attr([](const LayerAttrs& a) { return a.momentum; })},
      {d + "batch_norm2d/properties/affine", bn,
       attr([](const LayerAttrs& a) { return a.affine; })},
      {d + "layer_norm/properties/eps", ln, attr([](const LayerAttrs& a) { return a.eps; })},
      {d + "layer_norm/properties/affine", ln, attr([](const LayerAttrs& a) { return a.affine; })},
      {d + "group_norm/properties/eps", gn, attr([](const LayerAttrs& a) { return a.eps; })},
      {d + "group_norm/properties/affine", gn, attr([](const LayerAttrs& a) { return a.affine; })},
      {d + "dropout/properties/p", with_layer("{name: x, type: dropout}"),
       attr([](const LayerAttrs& a) { return a.p; })},
      {d + "leaky_relu/properties/negative_slope", with_layer("{name: x, type: leaky_relu}"),
       attr([](const LayerAttrs& a) { return a.negative_slope; })},
      {d + "gelu/properties/approximate", with_layer("{name: x, type: gelu}"),
       attr([](const LayerAttrs& a) {
         return a.approximate == GeluApproximation::tanh ? "tanh" : "none";
       })},
      {d + "scale/properties/init_value", with_layer("{name: x, type: scale}"),
       attr([](const LayerAttrs& a) { return a.init_value; })},
      {d + "self_attention/properties/dropout", attention,
       attr([](const LayerAttrs& a) { return a.p; })},
      {d + "self_attention/properties/bias", attention,
       attr([](const LayerAttrs& a) { return a.bias; })},
      {d + "token_select/properties/select",
       config("{name: synthetic}",
              "[{name: t, type: to_tokens}, {name: x, type: token_select}, "
              "{name: fc, type: linear, out_features: 10}]"),
       attr([](const LayerAttrs& a) { return a.select == TokenSelect::mean ? "mean" : "class"; })},
      {d + "linear/properties/bias",
       config("{name: synthetic}",
              "[{name: flat, type: flatten}, {name: x, type: linear, out_features: 10}]"),
       attr([](const LayerAttrs& a) { return a.bias; })},
      {d + "training/properties/epochs", plain, resolved("/training/epochs")},
      {d + "training/properties/batch_size", plain, resolved("/training/batch_size")},
      {d + "training/properties/eval_batch_size", plain, resolved("/training/eval_batch_size")},
      {d + "training/properties/loss", plain, resolved("/training/loss")},
      {d + "training/properties/label_smoothing", plain, resolved("/training/label_smoothing")},
      {d + "training/properties/clip_grad_norm", plain, resolved("/training/clip_grad_norm")},
      {d + "training/properties/log_every", plain, resolved("/training/log_every")},
      {d + "training/properties/threads", plain, resolved("/training/threads")},
      {d + "training/properties/precision", plain,
       [](const Resolved& r) {
         return json(std::string(precision_name(r.experiment.training.precision)));
       }},
      {d + "training/properties/allow_emulation", plain,
       [](const Resolved& r) { return json(r.experiment.training.allow_emulation); }},
      {d + "schedule/properties/type", with_schedule("{}"), resolved("/training/schedule/type")},
      {d + "warmup/properties/start_factor", with_schedule("{warmup: {epochs: 1}}"),
       resolved("/training/schedule/warmup/start_factor")},
      {d + "schedule_step/properties/gamma", with_schedule("{type: step, step_size: 1}"),
       resolved("/training/schedule/gamma")},
      {d + "schedule_multistep/properties/gamma",
       with_schedule("{type: multistep, milestones: [1]}"), resolved("/training/schedule/gamma")},
      {d + "schedule_cosine/properties/min_lr", with_schedule("{type: cosine}"),
       resolved("/training/schedule/min_lr")},
      {d + "schedule_one_cycle/properties/pct_start", one_cycle,
       resolved("/training/schedule/pct_start")},
      {d + "schedule_one_cycle/properties/div_factor", one_cycle,
       resolved("/training/schedule/div_factor")},
      {d + "schedule_one_cycle/properties/final_div_factor", one_cycle,
       resolved("/training/schedule/final_div_factor")},
      {d + "schedule_one_cycle/properties/cycle_momentum", one_cycle,
       schedule([](const ScheduleSpec& s) { return s.cycle_momentum; })},
      {d + "schedule_one_cycle/properties/base_momentum", one_cycle,
       schedule([](const ScheduleSpec& s) { return s.base_momentum; })},
      {d + "schedule_one_cycle/properties/max_momentum", one_cycle,
       schedule([](const ScheduleSpec& s) { return s.max_momentum; })},
      {d + "sgd/properties/lr", sgd, resolved("/training/optimizer/lr")},
      {d + "sgd/properties/momentum", sgd, resolved("/training/optimizer/momentum")},
      {d + "sgd/properties/dampening", sgd, resolved("/training/optimizer/dampening")},
      {d + "sgd/properties/weight_decay", sgd, resolved("/training/optimizer/weight_decay")},
      {d + "sgd/properties/weight_decay_exclude", sgd,
       resolved("/training/optimizer/weight_decay_exclude")},
      {d + "sgd/properties/nesterov", sgd, resolved("/training/optimizer/nesterov")},
      {d + "adam/properties/lr", adam, resolved("/training/optimizer/lr")},
      {d + "adam/properties/beta1", adam, resolved("/training/optimizer/beta1")},
      {d + "adam/properties/beta2", adam, resolved("/training/optimizer/beta2")},
      {d + "adam/properties/eps", adam, resolved("/training/optimizer/eps")},
      {d + "adam/properties/weight_decay_exclude", adam,
       resolved("/training/optimizer/weight_decay_exclude")},
      {d + "checkpoint/properties/every_epochs", config() + "checkpoint: {path: ''}\n",
       resolved("/checkpoint/every_epochs")},
      {d + "checkpoint/properties/allow_outside_run_folder", config() + "checkpoint: {path: ''}\n",
       resolved("/checkpoint/allow_outside_run_folder")},
      {d + "backend/properties/deterministic", plain, resolved("/backend/deterministic")},
      {d + "backend/properties/cuda_graph", plain, resolved("/backend/cuda_graph")},
      {d + "backend/properties/dataset_on_device", plain, resolved("/backend/dataset_on_device")},
      {d + "backend/properties/own_kernels", plain,
       [](const Resolved& r) { return json(r.experiment.backend.own_kernels); }},
      {d + "backend/properties/winograd", plain,
       [](const Resolved& r) { return json(r.experiment.backend.winograd); }},
      {"/properties/logging/properties/tensorboard", plain,
       [](const Resolved& r) { return json(r.experiment.logging.tensorboard); }},
      {"/properties/report/properties/html", plain,
       [](const Resolved& r) { return json(r.experiment.report.html); }},
  };
}

// The JSON pointers of every property schema that states a "default".
void collect_defaults(const nlohmann::ordered_json& node, const std::string& pointer,
                      std::set<std::string>& out) {
  if (node.is_object()) {
    if (node.contains("default")) out.insert(pointer);
    for (const auto& [key, child] : node.items()) collect_defaults(child, pointer + "/" + key, out);
  } else if (node.is_array()) {
    for (std::size_t i = 0; i < node.size(); ++i) {
      collect_defaults(node[i], pointer + "/" + std::to_string(i), out);
    }
  }
}

Resolved resolve(const testing::TempDir& dir, const std::string& yaml) {
  Resolved r;
  r.experiment = load_experiment(dir.write("c.yaml", yaml), {});
  const DatasetGeometry geometry = dataset_geometry(r.experiment.dataset);
  r.graph = build_graph(r.experiment.model, geometry.image, geometry.classes);
  return r;
}

TEST(SchemaDefaults, EachIsWhatTheCodeUsesWhenTheKeyIsLeftOut) {
  const nlohmann::ordered_json schema = load_schema("experiment.schema.json");
  testing::TempDir dir;
  for (const DefaultCase& c : cases()) {
    SCOPED_TRACE(c.schema_pointer);
    const auto pointer = nlohmann::ordered_json::json_pointer(c.schema_pointer);
    ASSERT_TRUE(schema.contains(pointer));
    ASSERT_TRUE(schema.at(pointer).contains("default"));
    const json stated = json::parse(schema.at(pointer)["default"].dump());
    const Resolved r = resolve(dir, c.config);
    EXPECT_EQ(c.value(r), stated) << "the schema says " << stated.dump();
    // The description says it too, in words.
    const std::string description = schema.at(pointer).value("description", "");
    EXPECT_NE(description.find("default"), std::string::npos) << description;
  }
}

TEST(SchemaDefaults, EveryDefaultInTheSchemaIsChecked) {
  std::set<std::string> stated, checked;
  collect_defaults(load_schema("experiment.schema.json"), "", stated);
  for (const DefaultCase& c : cases()) checked.insert(c.schema_pointer);
  for (const std::string& pointer : stated) {
    EXPECT_TRUE(checked.count(pointer)) << pointer << " states a default no case here checks";
  }
  // The keys of the issue ("Beyond LeNet") at least.
  for (const char* key :
       {"batch_norm2d/properties/eps", "batch_norm2d/properties/momentum",
        "batch_norm2d/properties/affine", "dropout/properties/p",
        "leaky_relu/properties/negative_slope", "global_avg_pool2d/properties/flatten",
        "conv2d/properties/dilation", "conv2d/properties/groups", "conv2d/properties/bias",
        "linear/properties/bias", "model/properties/init", "schedule_step/properties/gamma",
        "schedule_multistep/properties/gamma", "training/properties/label_smoothing",
        "training/properties/clip_grad_norm", "sgd/properties/weight_decay_exclude",
        "adam/properties/weight_decay_exclude",
        "augment_step/properties/random_crop/properties/padding"}) {
    EXPECT_TRUE(stated.count("/definitions/" + std::string(key))) << key;
  }
}

// A schedule without a type is a constant rate, and takes only the constant's keys.
TEST(SchemaDefaults, AScheduleWithoutATypeIsConstant) {
  testing::TempDir dir;
  const Resolved r = resolve(dir, with_schedule("{warmup: {epochs: 2}}"));
  EXPECT_EQ(r.experiment.training.schedule.type, ScheduleType::constant);
  EXPECT_DOUBLE_EQ(r.experiment.training.schedule.warmup_epochs, 2);
  try {
    resolve(dir, with_schedule("{min_lr: 0.1}"));
    ADD_FAILURE() << "a cosine key without the cosine type was accepted";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("training.schedule.min_lr: unknown key"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace runner
