#include "runner/report/tensorboard_log.h"

namespace runner {
namespace {

HParamsStatus hparams_status(RunStatus status) {
  switch (status) {
    case RunStatus::completed:
    case RunStatus::stopped_early:  // a search's trial stopped at its rung: a result
      return HParamsStatus::success;
    case RunStatus::running:
      return HParamsStatus::running;
    default:
      return HParamsStatus::failure;
  }
}

}  // namespace

TensorBoardLog::TensorBoardLog(const FolderInside& dir, const nlohmann::json& resolved_config)
    : writer_(dir) {
  // Indented by four spaces: a code block in the Text tab's markdown.
  std::string text;
  const std::string dump = resolved_config.dump(2);
  std::size_t start = 0;
  while (start <= dump.size()) {
    const std::size_t end = dump.find('\n', start);
    text += "    " + dump.substr(start, end == std::string::npos ? end : end - start) + "\n";
    if (end == std::string::npos) break;
    start = end + 1;
  }
  writer_.text("config", 0, text);
  writer_.flush();
}

void TensorBoardLog::update(const TrainingOutcome& so_far) {
  for (; points_written_ < so_far.loss_curve.size(); ++points_written_) {
    const LossPoint& point = so_far.loss_curve[points_written_];
    writer_.scalar("train/loss", point.step, point.loss);
    writer_.scalar("train/lr", point.step, point.learning_rate);
  }
  for (; epochs_written_ < so_far.epochs.size(); ++epochs_written_) {
    const EpochRecord& epoch = so_far.epochs[epochs_written_];
    auto optional = [&](const char* tag, const std::optional<double>& value) {
      if (value) writer_.scalar(tag, epoch.step, *value);
    };
    optional("val/loss", epoch.val_loss);
    optional("val/accuracy", epoch.val_accuracy);
    optional("test/loss", epoch.test_loss);
    optional("test/accuracy", epoch.test_accuracy);
    // The metrics' figures under their set's section: val_top5_accuracy as val/top5_accuracy.
    for (const auto& [key, value] : epoch.figures) {
      const std::size_t split = key.find('_');
      writer_.scalar(key.substr(0, split) + "/" + key.substr(split + 1), epoch.step, value);
    }
    writer_.scalar("throughput/images_per_second", epoch.step, epoch.images_per_second);
  }
  writer_.flush();
}

void TensorBoardLog::start_session(std::vector<HParam> hparams,
                                   const std::vector<std::string>& figure_names) {
  hparams_ = std::move(hparams);
  std::vector<std::string> tags;
  for (const std::string& name : figure_names) tags.push_back("final/" + name);
  const double now = event_wall_time();
  writer_.plugin_summary(kHParamsExperimentTag, 0, kHParamsPlugin,
                         hparams_experiment(hparams_, tags, now));
  writer_.plugin_summary(kHParamsSessionStartTag, 0, kHParamsPlugin,
                         hparams_session_start(hparams_, now));
  writer_.flush();
}

void TensorBoardLog::end_session(RunStatus status, const std::map<std::string, double>& metrics,
                                 std::int64_t step) {
  for (const auto& [name, value] : metrics) writer_.scalar("final/" + name, step, value);
  writer_.plugin_summary(kHParamsSessionEndTag, step, kHParamsPlugin,
                         hparams_session_end(hparams_status(status), event_wall_time()));
  writer_.flush();
}

RecordTensorboard TensorBoardLog::record() const {
  RecordTensorboard block;
  block.path = writer_.path().string();
  if (!writer_.error().empty()) block.error = writer_.error();
  return block;
}

}  // namespace runner
