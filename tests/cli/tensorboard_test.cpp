// TensorBoard event files, read back by a reader written here from the format's description
// (TFRecord framing with masked CRC-32Cs around tensorflow.Event protocol buffers), not by the
// writer's code: framing, both CRCs, tags, steps and values against the report's curves, and a
// last record cut short (a run killed mid-write) tolerated as TensorBoard tolerates it. The
// HParams data of sweep points is decoded here from the hparams plugin's .proto field numbers
// (plugin_data.proto, api.proto, struct.proto's Value).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <thread>

#include "runner/report/event_file.h"
#include "runner/report/hparams_plugin.h"
#include "runner/util/crc32c.h"
#include "runner/util/errors.h"
#include "runner/util/files.h"
#include "test_support.h"

namespace runner::testing {
namespace {

using nlohmann::json;

// One decoded Event: its step, and its summary's values (scalars by tag, texts by tag).
struct Event {
  double wall_time = 0;
  std::int64_t step = 0;
  std::string file_version;
  std::map<std::string, float> scalars;
  std::map<std::string, std::string> texts;
  std::map<std::string, std::pair<std::string, std::string>> plugins;  // tag -> (name, content)
};

// A protobuf wire-format cursor over one message.
class Message {
 public:
  explicit Message(std::string_view bytes) : bytes_(bytes) {}
  bool done() const { return at_ >= bytes_.size(); }
  // The next field: its number and wire type; its value through the readers below.
  std::pair<unsigned, unsigned> key() {
    const std::uint64_t k = varint();
    return {static_cast<unsigned>(k >> 3), static_cast<unsigned>(k & 7)};
  }
  std::uint64_t varint() {
    std::uint64_t value = 0;
    for (int shift = 0;; shift += 7) {
      if (at_ >= bytes_.size() || shift > 63) throw std::runtime_error("bad varint");
      const auto byte = static_cast<unsigned char>(bytes_[at_++]);
      value |= std::uint64_t(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return value;
    }
  }
  template <typename T>
  T fixed() {
    if (at_ + sizeof(T) > bytes_.size()) throw std::runtime_error("short fixed field");
    T value;
    std::memcpy(&value, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return value;
  }
  std::string_view bytes() {
    const std::uint64_t n = varint();
    if (at_ + n > bytes_.size()) throw std::runtime_error("short bytes field");
    std::string_view out = bytes_.substr(at_, n);
    at_ += n;
    return out;
  }
  void skip(unsigned type) {
    if (type == 0)
      varint();
    else if (type == 1)
      fixed<std::uint64_t>();
    else if (type == 2)
      bytes();
    else if (type == 5)
      fixed<std::uint32_t>();
    else
      throw std::runtime_error("unknown wire type");
  }

 private:
  std::string_view bytes_;
  std::size_t at_ = 0;
};

// Summary.Value: tag (1), simple_value (2, float), tensor (8: TensorProto, string_val 8).
void read_value(std::string_view bytes, Event& event) {
  Message m(bytes);
  std::string tag;
  std::optional<float> scalar;
  std::optional<std::string> text;
  std::optional<std::pair<std::string, std::string>> plugin;
  while (!m.done()) {
    auto [field, type] = m.key();
    if (field == 1 && type == 2) {
      tag = std::string(m.bytes());
    } else if (field == 9 && type == 2) {  // SummaryMetadata: plugin_data (1)
      Message metadata(m.bytes());
      while (!metadata.done()) {
        auto [f, t] = metadata.key();
        if (f != 1 || t != 2) {
          metadata.skip(t);
          continue;
        }
        Message data(metadata.bytes());  // PluginData: plugin_name (1), content (2)
        plugin.emplace();
        while (!data.done()) {
          auto [df, dt] = data.key();
          if (df == 1 && dt == 2)
            plugin->first = std::string(data.bytes());
          else if (df == 2 && dt == 2)
            plugin->second = std::string(data.bytes());
          else
            data.skip(dt);
        }
      }
    } else if (field == 2 && type == 5) {
      scalar = m.fixed<float>();
    } else if (field == 8 && type == 2) {
      Message tensor(m.bytes());
      while (!tensor.done()) {
        auto [f, t] = tensor.key();
        if (f == 8 && t == 2)
          text = std::string(tensor.bytes());
        else
          tensor.skip(t);
      }
    } else {
      m.skip(type);
    }
  }
  if (scalar) event.scalars[tag] = *scalar;
  if (plugin && plugin->first == "text") plugin.reset();  // a text summary, read above
  if (text && !plugin) event.texts[tag] = *text;
  if (plugin) event.plugins[tag] = *plugin;
}

// HParamsPluginData decoded: which message (2 experiment, 3 session start, 4 session end) and
// its fields.
struct HParamsData {
  std::uint64_t version = 99;
  unsigned kind = 0;
  std::map<std::string, std::uint64_t> hparam_types;  // experiment: name -> DataType
  std::vector<std::string> metric_tags;               // experiment
  std::map<std::string, json> hparams;                // session start: name -> value
  double time = 0;                                    // created, started or ended
  std::uint64_t status = 0;                           // session end
};

// google.protobuf.Value: number (2), string (3), bool (4).
json read_proto_value(std::string_view bytes) {
  Message m(bytes);
  json value;
  while (!m.done()) {
    auto [f, t] = m.key();
    if (f == 2 && t == 1)
      value = m.fixed<double>();
    else if (f == 3 && t == 2)
      value = std::string(m.bytes());
    else if (f == 4 && t == 0)
      value = m.varint() != 0;
    else
      m.skip(t);
  }
  return value;
}

HParamsData read_hparams(std::string_view bytes) {
  HParamsData out;
  Message m(bytes);
  while (!m.done()) {
    auto [field, type] = m.key();
    if (field == 1 && type == 0) {
      out.version = m.varint();
      continue;
    }
    if (type != 2) {
      m.skip(type);
      continue;
    }
    out.kind = field;
    Message body(m.bytes());
    while (!body.done()) {
      auto [f, t] = body.key();
      if (field == 2 && f == 4 && t == 2) {  // Experiment.hparam_infos: name (1), type (4)
        Message info(body.bytes());
        std::string name;
        std::uint64_t data_type = 0;
        while (!info.done()) {
          auto [i, it] = info.key();
          if (i == 1 && it == 2)
            name = std::string(info.bytes());
          else if (i == 4 && it == 0)
            data_type = info.varint();
          else
            info.skip(it);
        }
        out.hparam_types[name] = data_type;
      } else if (field == 2 && f == 5 && t == 2) {  // metric_infos: name (1) = MetricName
        Message info(body.bytes());
        while (!info.done()) {
          auto [i, it] = info.key();
          if (i != 1 || it != 2) {
            info.skip(it);
            continue;
          }
          Message name(info.bytes());  // MetricName: group (1), tag (2)
          while (!name.done()) {
            auto [n, nt] = name.key();
            if (n == 2 && nt == 2)
              out.metric_tags.push_back(std::string(name.bytes()));
            else
              name.skip(nt);
          }
        }
      } else if (field == 3 && f == 1 && t == 2) {  // SessionStartInfo.hparams: map entries
        Message entry(body.bytes());
        std::string key;
        json value;
        while (!entry.done()) {
          auto [e, et] = entry.key();
          if (e == 1 && et == 2)
            key = std::string(entry.bytes());
          else if (e == 2 && et == 2)
            value = read_proto_value(entry.bytes());
          else
            entry.skip(et);
        }
        out.hparams[key] = value;
      } else if (((field == 2 && f == 3) || (field == 3 && f == 5) || (field == 4 && f == 2)) &&
                 t == 1) {
        out.time = body.fixed<double>();
      } else if (field == 4 && f == 1 && t == 0) {
        out.status = body.varint();
      } else {
        body.skip(t);
      }
    }
  }
  return out;
}

// The hparams plugin's data of `tag` in the events (the last one), decoded.
std::optional<HParamsData> hparams_of(const std::vector<Event>& events, const std::string& tag) {
  std::optional<HParamsData> found;
  for (const Event& e : events) {
    auto it = e.plugins.find(tag);
    if (it == e.plugins.end()) continue;
    EXPECT_EQ(it->second.first, "hparams") << tag;
    found = read_hparams(it->second.second);
  }
  return found;
}

Event read_event(std::string_view bytes) {
  Event event;
  Message m(bytes);
  while (!m.done()) {
    auto [field, type] = m.key();
    if (field == 1 && type == 1) {
      event.wall_time = m.fixed<double>();
    } else if (field == 2 && type == 0) {
      event.step = static_cast<std::int64_t>(m.varint());
    } else if (field == 3 && type == 2) {
      event.file_version = std::string(m.bytes());
    } else if (field == 5 && type == 2) {
      Message summary(m.bytes());
      while (!summary.done()) {
        auto [f, t] = summary.key();
        if (f == 1 && t == 2)
          read_value(summary.bytes(), event);
        else
          summary.skip(t);
      }
    } else {
      m.skip(type);
    }
  }
  return event;
}

std::uint32_t masked(std::string_view bytes) {
  // The mask as TFRecord defines it, over this test's own use of the CRC.
  const std::uint32_t crc = crc32c(bytes);
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

// Every complete record of the file; a record cut short at the end is left out (TensorBoard
// stops there and reads on when the file grows), a bad CRC fails the test.
std::vector<Event> read_events(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<Event> events;
  std::size_t at = 0;
  while (at + 12 <= data.size()) {
    std::uint64_t length;
    std::uint32_t length_crc;
    std::memcpy(&length, data.data() + at, 8);
    std::memcpy(&length_crc, data.data() + at + 8, 4);
    EXPECT_EQ(length_crc, masked(std::string_view(data).substr(at, 8))) << "at byte " << at;
    if (at + 12 + length + 4 > data.size()) break;  // cut short
    const std::string_view record = std::string_view(data).substr(at + 12, length);
    std::uint32_t data_crc;
    std::memcpy(&data_crc, data.data() + at + 12 + length, 4);
    EXPECT_EQ(data_crc, masked(record)) << "at byte " << at;
    events.push_back(read_event(record));
    at += 12 + length + 4;
  }
  return events;
}

std::filesystem::path only_event_file(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().filename().string().rfind("events.out.tfevents.", 0) == 0)
      files.push_back(entry.path());
  }
  EXPECT_EQ(files.size(), 1u) << dir;
  return files.empty() ? std::filesystem::path() : files[0];
}

TEST(EventFile, ScalarsAndTextReadBackAndACutShortLastRecordIsLeftOut) {
  TempDir tmp;
  std::filesystem::path file;
  {
    EventFileWriter writer({tmp.path(), "tb"});
    writer.scalar("train/loss", 8, 2.5);
    writer.scalar("train/loss", 300000000000, -0.125);  // a step beyond 32 bits
    writer.text("config", 0, "    {\"name\": \"x\"}");
    writer.flush();
    file = writer.path();
    EXPECT_TRUE(writer.error().empty()) << writer.error();
  }
  auto events = read_events(file);
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].file_version, "brain.Event:2");
  EXPECT_GT(events[0].wall_time, 1.7e9);
  EXPECT_EQ(events[1].step, 8);
  EXPECT_EQ(events[1].scalars.at("train/loss"), 2.5f);
  EXPECT_EQ(events[2].step, 300000000000);
  EXPECT_EQ(events[2].scalars.at("train/loss"), -0.125f);
  EXPECT_EQ(events[3].texts.at("config"), "    {\"name\": \"x\"}");

  // Killed in the middle of its last record: the records before it still read.
  const std::string whole = read_file(file);
  write_file_atomically(file, whole.substr(0, whole.size() - 5));
  EXPECT_EQ(read_events(file).size(), 3u);
}

TEST(EventFile, HParamsMessagesReadBackWithEveryValueType) {
  TempDir tmp;
  std::filesystem::path file;
  const std::vector<HParam> hparams = {{"training.optimizer.lr", 0.0125},
                                       {"training.optimizer.name", "adam"},
                                       {"dataset.augment_on", true},
                                       {"model.widths", json::array({1, 2})}};
  {
    EventFileWriter writer({tmp.path(), "tb"});
    writer.plugin_summary("_hparams_/session_start_info", 0, "hparams",
                          hparams_session_start(hparams, 1.7e9));
    writer.plugin_summary("_hparams_/experiment", 9, "hparams",
                          hparams_experiment(hparams, {"final/test_accuracy", "val/loss"}, 1.8e9));
    writer.plugin_summary("_hparams_/session_end_info", 9, "hparams",
                          hparams_session_end(HParamsStatus::failure, 1.9e9));
    writer.flush();
    file = writer.path();
  }
  const auto events = read_events(file);
  const auto start = hparams_of(events, "_hparams_/session_start_info");
  ASSERT_TRUE(start);
  EXPECT_EQ(start->version, 0u);
  EXPECT_EQ(start->kind, 3u);
  EXPECT_EQ(start->hparams.at("training.optimizer.lr"), 0.0125);
  EXPECT_EQ(start->hparams.at("training.optimizer.name"), "adam");
  EXPECT_EQ(start->hparams.at("dataset.augment_on"), true);
  EXPECT_EQ(start->hparams.at("model.widths"), "[1,2]") << "a list is its JSON text";
  EXPECT_EQ(start->time, 1.7e9);
  const auto experiment = hparams_of(events, "_hparams_/experiment");
  ASSERT_TRUE(experiment);
  EXPECT_EQ(experiment->kind, 2u);
  // DataType: 1 string, 2 bool, 3 float64.
  EXPECT_EQ(experiment->hparam_types,
            (std::map<std::string, std::uint64_t>{{"training.optimizer.lr", 3},
                                                  {"training.optimizer.name", 1},
                                                  {"dataset.augment_on", 2},
                                                  {"model.widths", 1}}));
  EXPECT_EQ(experiment->metric_tags, (std::vector<std::string>{"final/test_accuracy", "val/loss"}));
  EXPECT_EQ(experiment->time, 1.8e9);
  const auto end = hparams_of(events, "_hparams_/session_end_info");
  ASSERT_TRUE(end);
  EXPECT_EQ(end->kind, 4u);
  EXPECT_EQ(end->status, 2u);  // STATUS_FAILURE
  EXPECT_EQ(end->time, 1.9e9);
}

TEST(EventFile, AFolderThatCannotBeMadeIsAUserErrorNamingIt) {
  TempDir tmp;
  write_file_atomically(tmp / "file", "x");
  try {
    EventFileWriter writer({tmp / "file", "tb"});
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("file"), std::string::npos) << error.what();
  }
}

// The scalars of `tag` by step, over all events.
std::map<std::int64_t, float> series(const std::vector<Event>& events, const std::string& tag) {
  std::map<std::int64_t, float> out;
  for (const Event& e : events) {
    if (e.scalars.count(tag)) out[e.step] = e.scalars.at(tag);
  }
  return out;
}

TEST(TensorBoard, ARunLogsItsCurvesAsTheReportHasThem) {
  TempDir tmp;
  auto run = run_runner("run " + (source_dir() / "configs/tiny_synthetic.yaml").string() +
                        " --tensorboard --set dataset.validation_split=0.2"
                        " --set 'metrics=[macro_f1, {top_k: 2}]' --output " +
                        (tmp / "out").string() + " -q");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const std::string report_line = run.output.substr(run.output.rfind("report: ") + 8);
  const std::filesystem::path report_path = report_line.substr(0, report_line.find('\n'));
  const json report = json::parse(read_file(report_path));
  ASSERT_TRUE(report["tensorboard"].is_object()) << report.dump();
  const std::filesystem::path file = report["tensorboard"]["path"].get<std::string>();
  EXPECT_EQ(file.parent_path(), report_path.parent_path() / "tensorboard");
  EXPECT_EQ(only_event_file(file.parent_path()), file);
  const auto events = read_events(file);

  const auto loss = series(events, "train/loss");
  const auto lr = series(events, "train/lr");
  const json& train = report["curves"]["train"];
  ASSERT_EQ(loss.size(), train.size());
  for (const json& point : train) {
    const auto step = point["step"].get<std::int64_t>();
    EXPECT_EQ(loss.at(step), static_cast<float>(point["loss"].get<double>())) << step;
    EXPECT_EQ(lr.at(step), static_cast<float>(point["lr"].get<double>())) << step;
  }
  for (const auto& [tag, curve] : {std::pair{"val", "validation"}, {"test", "test"}}) {
    const auto accuracy = series(events, std::string(tag) + "/accuracy");
    const auto set_loss = series(events, std::string(tag) + "/loss");
    const json& epochs = report["curves"][curve];
    ASSERT_EQ(accuracy.size(), epochs.size()) << tag;
    for (const json& epoch : epochs) {
      const auto step = epoch["step"].get<std::int64_t>();
      EXPECT_EQ(accuracy.at(step), static_cast<float>(epoch["accuracy"].get<double>())) << tag;
      EXPECT_EQ(set_loss.at(step), static_cast<float>(epoch["loss"].get<double>())) << tag;
    }
  }
  // The metrics' figures under their set's section, one per epoch at the epoch's step.
  for (const auto& [tag, curve] : {std::pair{"val", "validation"}, {"test", "test"}}) {
    for (const std::string figure : {"macro_f1", "top2_accuracy"}) {
      const auto logged = series(events, std::string(tag) + "/" + figure);
      const json& epochs = report["epochs"];
      ASSERT_EQ(logged.size(), epochs.size()) << tag << " " << figure;
      for (std::size_t e = 0; e < epochs.size(); ++e) {
        const auto step = report["curves"][curve][e]["step"].get<std::int64_t>();
        EXPECT_EQ(logged.at(step),
                  static_cast<float>(epochs[e][std::string(tag) + "_" + figure].get<double>()))
            << tag << " " << figure;
      }
    }
  }
  EXPECT_EQ(series(events, "throughput/images_per_second").size(), report["epochs"].size());
  bool config = false;
  for (const Event& e : events) {
    if (e.texts.count("config"))
      config = e.texts.at("config").find("tiny_synthetic") != std::string::npos;
  }
  EXPECT_TRUE(config);
}

TEST(TensorBoard, SweepPointsLogSideBySideUnderTheSweepFolder) {
  TempDir tmp;
  auto sweep = run_runner("sweep " + (source_dir() / "configs/tiny_synthetic.yaml").string() +
                          " --grid model.width=0.5,1 --mode train --set training.epochs=1 "
                          "--tensorboard --output " +
                          (tmp / "out").string() + " -q");
  ASSERT_EQ(sweep.exit_code, 0) << sweep.output;
  for (const auto& [id, width] : {std::pair{"width=0.5", 0.5}, {"width=1", 1.0}}) {
    const auto dir = tmp / "out" / "tiny_synthetic-sweep" / "tensorboard" / id;
    ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir << "\n" << sweep.output;
    const auto events = read_events(only_event_file(dir));
    EXPECT_FALSE(series(events, "train/loss").empty()) << id;
    // The HParams dashboard's session: the swept value, the kept model's figures as metrics
    // (scalars in the same file, equal to the report's), and a successful end.
    const auto start = hparams_of(events, "_hparams_/session_start_info");
    ASSERT_TRUE(start) << id;
    EXPECT_EQ(start->hparams, (std::map<std::string, json>{{"model.width", width}})) << id;
    const auto experiment = hparams_of(events, "_hparams_/experiment");
    ASSERT_TRUE(experiment) << id;
    EXPECT_EQ(experiment->hparam_types, (std::map<std::string, std::uint64_t>{{"model.width", 3}}));
    const json report =
        json::parse(read_file(tmp / "out" / "tiny_synthetic-sweep" / id / "report.json"));
    ASSERT_FALSE(experiment->metric_tags.empty());
    for (const std::string& tag : experiment->metric_tags) {
      const auto values = series(events, tag);
      ASSERT_EQ(values.size(), 1u) << tag;
      EXPECT_EQ(values.begin()->second,
                static_cast<float>(report["metrics"][tag.substr(6)].get<double>()))
          << tag;
    }
    EXPECT_NE(std::find(experiment->metric_tags.begin(), experiment->metric_tags.end(),
                        "final/test_accuracy"),
              experiment->metric_tags.end());
    const auto end = hparams_of(events, "_hparams_/session_end_info");
    ASSERT_TRUE(end) << id;
    EXPECT_EQ(end->status, 1u);  // STATUS_SUCCESS
  }
  // Run again (--force), each point's event file replaces its earlier one: one run, one line.
  const auto dir = tmp / "out" / "tiny_synthetic-sweep" / "tensorboard" / "width=1";
  const auto first = only_event_file(dir);
  write_file_atomically(dir / "notes.txt", "kept");
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // a new file name (seconds)
  auto again = run_runner("sweep " + (source_dir() / "configs/tiny_synthetic.yaml").string() +
                          " --grid model.width=0.5,1 --mode train --set training.epochs=1 "
                          "--tensorboard --force --output " +
                          (tmp / "out").string() + " -q");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  const auto second = only_event_file(dir);
  EXPECT_NE(second, first);
  EXPECT_TRUE(std::filesystem::exists(dir / "notes.txt"));  // only event files go
}

// The files in `dir`, by name.
std::vector<std::string> names_in(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A one-point sweep with TensorBoard into `output` (plus `extra` arguments), its report's error.
std::pair<CommandResult, std::string> tensorboard_sweep(const std::filesystem::path& output,
                                                        const std::string& extra) {
  CommandResult sweep =
      run_runner("sweep " + (source_dir() / "configs/tiny_synthetic.yaml").string() +
                 " --grid model.width=1 --mode train --set training.epochs=1 "
                 "--tensorboard --output " +
                 output.string() + " " + extra);
  const auto report = output / "tiny_synthetic-sweep" / "width=1" / "report.json";
  std::string error;
  if (std::filesystem::exists(report)) error = json::parse(read_file(report)).value("error", "");
  return {sweep, error};
}

// SWEEP_DIR/tensorboard a link (to anywhere): no event file is written through it, and the point
// says which link it met.
TEST(TensorBoard, ASweepWritesNothingThroughALinkedTensorBoardFolder) {
  TempDir tmp;
  const auto sweep_dir = tmp / "out" / "tiny_synthetic-sweep";
  std::filesystem::create_directories(sweep_dir);
  std::filesystem::create_directories(tmp / "elsewhere");
  std::filesystem::create_directory_symlink(tmp / "elsewhere", sweep_dir / "tensorboard");
  const auto [sweep, error] = tensorboard_sweep(tmp / "out", "");
  EXPECT_TRUE(names_in(tmp / "elsewhere").empty()) << sweep.output;
  EXPECT_EQ(sweep.exit_code, 1) << sweep.output;
  EXPECT_NE(error.find((sweep_dir / "tensorboard").string() + " is a symbolic link"),
            std::string::npos)
      << error << "\n"
      << sweep.output;
}

// SWEEP_DIR/tensorboard/<point> a link: --force, which removes the point's earlier event files,
// removes none in the link's target, and writes none there.
TEST(TensorBoard, ForceRemovesNothingThroughALinkedPointFolder) {
  TempDir tmp;
  const auto sweep_dir = tmp / "out" / "tiny_synthetic-sweep";
  std::filesystem::create_directories(sweep_dir / "tensorboard");
  write_file_atomically(tmp / "elsewhere" / "events.out.tfevents.1.host", "someone else's");
  std::filesystem::create_directory_symlink(tmp / "elsewhere",
                                            sweep_dir / "tensorboard" / "width=1");
  const auto [sweep, error] = tensorboard_sweep(tmp / "out", "--force");
  EXPECT_EQ(names_in(tmp / "elsewhere"), std::vector<std::string>{"events.out.tfevents.1.host"})
      << sweep.output;
  EXPECT_NE(error.find((sweep_dir / "tensorboard" / "width=1").string() + " is a symbolic link"),
            std::string::npos)
      << error << "\n"
      << sweep.output;
}

}  // namespace
}  // namespace runner::testing
