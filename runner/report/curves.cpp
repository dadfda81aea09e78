// The report's loss and accuracy curves.
#include "runner/report/curves.h"

namespace runner {

nlohmann::json curves_json(const TrainingOutcome& outcome) {
  nlohmann::json train = nlohmann::json::array();
  for (const LossPoint& p : outcome.loss_curve) {
    train.push_back(
        {{"step", p.step}, {"epoch", p.epoch}, {"loss", p.loss}, {"lr", p.learning_rate}});
  }
  nlohmann::json test = nlohmann::json::array(), validation = nlohmann::json::array();
  for (const EpochRecord& e : outcome.epochs) {
    if (e.test_loss) {
      test.push_back({{"step", e.step},
                      {"epoch", e.epoch},
                      {"loss", *e.test_loss},
                      {"accuracy", *e.test_accuracy}});
    }
    if (e.val_loss) {
      validation.push_back({{"step", e.step},
                            {"epoch", e.epoch},
                            {"loss", *e.val_loss},
                            {"accuracy", *e.val_accuracy}});
    }
  }
  nlohmann::json curves = {{"train", train}, {"test", test}};
  if (!validation.empty()) curves["validation"] = validation;
  return curves;
}

}  // namespace runner
