#!/usr/bin/python3
"""Writes tests/backends/weighted_loss_golden.json: the weighted and focal training loss
(training.loss: class_weights, focal_gamma) and its gradient with respect to the logits, in
float64, for tests/backends/weighted_loss_test.cpp to check backends/common/weighted_cross_entropy
against without torch at test time. Without focal_gamma the reference is PyTorch's own
CrossEntropyLoss(weight=w, label_smoothing=e) (mean reduction); with it, the focal loss
sum_k t_k w_k (1 - p_k)^g (-log p_k) / sum_r w_{y_r} written with torch operations and
differentiated by autograd.

Run with a Python that has torch: /usr/bin/python3 scripts/weighted_loss_golden.py."""
import json
import os

import torch

CASES = [  # (name, rows, classes, weights or None, smoothing, gamma, seed)
    ("weights", 6, 4, [0.5, 2.0, 1.0, 3.0], 0.0, 0.0, 1),
    ("weights_and_smoothing", 6, 4, [0.5, 2.0, 1.0, 3.0], 0.1, 0.0, 2),
    ("a_zero_weight", 5, 3, [0.0, 1.0, 4.0], 0.2, 0.0, 3),
    ("focal", 6, 5, None, 0.0, 2.0, 4),
    ("focal_fractional_gamma", 6, 5, None, 0.0, 0.5, 5),
    ("focal_weights_smoothing", 7, 10, [1, 2, 3, 4, 5, 0.5, 0.25, 1, 1, 2], 0.1, 1.5, 6),
]


def focal_reference(z, labels, weights, smoothing, gamma):
    classes = z.shape[1]
    log_p = torch.log_softmax(z, dim=1)
    p = log_p.exp()
    target = torch.full_like(z, smoothing / classes)
    target[torch.arange(z.shape[0]), labels] += 1 - smoothing
    w = torch.ones(classes, dtype=z.dtype) if weights is None else weights
    per_class = target * w * (1 - p).pow(gamma) * -log_p
    return per_class.sum() / w[labels].sum()


def main():
    cases = []
    for name, rows, classes, weights, smoothing, gamma, seed in CASES:
        g = torch.Generator().manual_seed(seed)
        logits = (torch.randn(rows, classes, generator=g) * 3).float().double()
        labels = torch.randint(0, classes, (rows,), generator=g)
        w = None if weights is None else torch.tensor(weights, dtype=torch.float64)
        z = logits.clone().requires_grad_(True)
        if gamma == 0:
            loss = torch.nn.CrossEntropyLoss(weight=w, label_smoothing=smoothing)(z, labels)
        else:
            loss = focal_reference(z, labels, w, smoothing, gamma)
        loss.backward()
        cases.append({"name": name, "classes": classes, "weights": weights,
                      "smoothing": smoothing, "gamma": gamma,
                      "logits": logits.flatten().tolist(), "labels": labels.tolist(),
                      "mean_loss": loss.item(), "grad": z.grad.flatten().tolist()})
    out = os.path.join(os.path.dirname(__file__), "..", "tests", "backends",
                       "weighted_loss_golden.json")
    with open(out, "w") as f:
        json.dump({"torch_version": torch.__version__, "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
