// TensorBoard event files, read back by a reader written here from the format's description
// (TFRecord framing with masked CRC-32Cs around tensorflow.Event protocol buffers), not by the
// writer's code: framing, both CRCs, tags, steps and values against the report's curves, and a
// last record cut short (a run killed mid-write) tolerated as TensorBoard tolerates it.
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
  while (!m.done()) {
    auto [field, type] = m.key();
    if (field == 1 && type == 2) {
      tag = std::string(m.bytes());
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
  if (text) event.texts[tag] = *text;
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
  for (const char* id : {"width=0.5", "width=1"}) {
    const auto dir = tmp / "out" / "tiny_synthetic-sweep" / "tensorboard" / id;
    ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir << "\n" << sweep.output;
    EXPECT_FALSE(series(read_events(only_event_file(dir)), "train/loss").empty()) << id;
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
