// The report's loss and accuracy curves.
#include "runner/report/curves.h"

namespace runner {

RecordCurves curves_record(const TrainingOutcome& outcome) {
  std::vector<RecordLossPoint> train;
  for (const LossPoint& p : outcome.loss_curve) {
    train.push_back({p.step, p.epoch, p.loss, p.learning_rate, {}});
  }
  std::vector<RecordEvalPoint> test, validation;
  for (const EpochRecord& e : outcome.epochs) {
    if (e.test_loss) test.push_back({e.step, e.epoch, *e.test_loss, *e.test_accuracy, {}});
    if (e.val_loss) validation.push_back({e.step, e.epoch, *e.val_loss, *e.val_accuracy, {}});
  }
  RecordCurves curves;
  curves.train = std::move(train);
  curves.test = std::move(test);
  if (!validation.empty()) curves.validation = std::move(validation);
  return curves;
}

}  // namespace runner
