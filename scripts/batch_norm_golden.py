#!/usr/bin/env python3
"""Golden values for tests/backends/batch_norm_golden_test.cpp: PyTorch's BatchNorm2d running
statistics after training steps on the images that test builds (bytes (i * 37 + step * 11) %
256, normalised (b / 255 - 0.5) / 0.5), batch 4 of 3x5x5, momentum 0.3, then one evaluation
output. Prints C++ initialisers; run with /usr/bin/python3."""
import torch

N, C, H, W, STEPS = 4, 3, 5, 5, 3


def batch(step):
    count = N * C * H * W
    data = torch.tensor([(i * 37 + step * 11) % 256 for i in range(count)], dtype=torch.float64)
    return ((data / 255 - 0.5) / 0.5).reshape(N, C, H, W)


bn = torch.nn.BatchNorm2d(C, momentum=0.3).double()
bn.train()
for step in range(STEPS):
    bn(batch(step))
bn.eval()
out = bn(batch(STEPS))


def cpp(name, values):
    print(f"const std::vector<double> {name} = {{" + ", ".join(f"{v:.12g}" for v in values) + "};")


cpp("kRunningMean", bn.running_mean.tolist())
cpp("kRunningVar", bn.running_var.tolist())
print(f"const std::int64_t kBatchesTracked = {int(bn.num_batches_tracked)};")
cpp("kEvalFirstImage", out[0].flatten()[:8].tolist())
