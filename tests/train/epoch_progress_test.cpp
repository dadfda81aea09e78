// The training bar's text.
#include "runner/train/epoch_progress.h"

#include <gtest/gtest.h>

namespace runner {
namespace {

TEST(EpochProgress, ShowsStepsRateEtaAndLoss) {
  EpochProgressState s{1, 3, 231, 5000, 1234.4, 42.2, 2.30149};
  EXPECT_EQ(format_epoch_progress(s),
            "epoch 1/3 [--------------------]  231/5000  1234 images/s  ETA 0:42  loss 2.301");
}

TEST(EpochProgress, FillsTheBarAndWritesLongEtasWithHours) {
  EpochProgressState s{2, 2, 2500, 5000, 10, 3723, -1};
  EXPECT_EQ(format_epoch_progress(s),
            "epoch 2/2 [##########----------] 2500/5000  10 images/s  ETA 1:02:03");
}

TEST(EpochProgress, UnknownEtaIsAQuestionMark) {
  EpochProgressState s{1, 1, 0, 10, 0, -1, -1};
  EXPECT_EQ(format_epoch_progress(s), "epoch 1/1 [--------------------]  0/10  0 images/s  ETA ?");
}

TEST(EpochProgress, ShowsTheLastEpochsValidationAccuracy) {
  EpochProgressState s{2, 3, 231, 5000, 1234.4, 42.2, 2.30149, 0.91234};
  EXPECT_EQ(format_epoch_progress(s),
            "epoch 2/3 [--------------------]  231/5000  1234 images/s  ETA 0:42  loss 2.301  "
            "val acc 91.23 %");
}

}  // namespace
}  // namespace runner
