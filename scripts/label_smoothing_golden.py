#!/usr/bin/python3
"""Writes tests/backends/label_smoothing_golden.json: PyTorch's CrossEntropyLoss(label_smoothing=e)
(mean over the batch) and its gradient with respect to the logits, in float64, for a few batches
and smoothing values, so that tests/backends/label_smoothing_test.cpp checks the runner's loss
(backends/common/host_math.cpp) without torch at test time.

Run with a Python that has torch: /usr/bin/python3 scripts/label_smoothing_golden.py."""
import json
import os

import torch

CASES = [  # (name, rows, classes, smoothing, seed)
    ("no_smoothing", 5, 4, 0.0, 1),
    ("smoothing_0.1", 5, 4, 0.1, 2),
    ("smoothing_0.3_ten_classes", 3, 10, 0.3, 3),
    ("smoothing_1.0", 4, 3, 1.0, 4),
]


def main():
    cases = []
    for name, rows, classes, smoothing, seed in CASES:
        g = torch.Generator().manual_seed(seed)
        logits = (torch.randn(rows, classes, generator=g) * 3).float().double()
        labels = torch.randint(0, classes, (rows,), generator=g)
        z = logits.clone().requires_grad_(True)
        loss = torch.nn.CrossEntropyLoss(label_smoothing=smoothing)(z, labels)
        loss.backward()
        cases.append({"name": name, "classes": classes, "smoothing": smoothing,
                      "logits": logits.flatten().tolist(), "labels": labels.tolist(),
                      "mean_loss": loss.item(), "grad": z.grad.flatten().tolist()})
    out = os.path.join(os.path.dirname(__file__), "..", "tests", "backends",
                       "label_smoothing_golden.json")
    with open(out, "w") as f:
        json.dump({"torch_version": torch.__version__, "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
