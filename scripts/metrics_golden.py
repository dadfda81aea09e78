#!/usr/bin/python3
"""Writes tests/metrics/metrics_golden.json: scikit-learn's figures on sets of logits and labels,
so that tests/metrics/metrics_golden_test.cpp checks the runner's metrics (runner/metrics) against
scikit-learn without it at test time: top_k_accuracy_score, balanced_accuracy_score,
f1_score(average="macro") and precision_recall_fscore_support(average=None), on balanced and
imbalanced sets, a class no image has, a class nothing is predicted as, and 100 classes.

Run with Debian's Python and python3-sklearn: /usr/bin/python3 scripts/metrics_golden.py."""
import json
import os
import warnings

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import (balanced_accuracy_score, f1_score, precision_recall_fscore_support,
                             top_k_accuracy_score)

CASES = [  # (name, images, classes, ks, seed, shape of the labels and logits)
    ("balanced_ten_classes", 200, 10, [1, 3, 5], 1, "plain"),
    ("imbalanced_one_class_a_tenth", 300, 5, [1, 2], 2, "imbalanced"),
    ("a_class_without_images", 200, 6, [1, 3], 3, "no_images_of_last"),
    ("a_class_never_predicted", 200, 6, [1, 3], 4, "never_predict_first"),
    ("a_class_neither_seen_nor_predicted", 150, 4, [1, 2, 3], 5, "last_absent"),
    ("hundred_classes", 150, 100, [1, 5, 10], 6, "plain"),
]


def make(images, classes, seed, shape):
    rng = np.random.default_rng(seed)
    if shape == "imbalanced":
        weights = np.ones(classes)
        weights[0] = 0.1
        labels = rng.choice(classes, size=images, p=weights / weights.sum())
    elif shape in ("no_images_of_last", "last_absent"):
        labels = rng.integers(0, classes - 1, size=images)
    else:
        labels = rng.integers(0, classes, size=images)
    # Logits that lean to the true class, so that the figures are neither 0 nor 1.
    logits = rng.normal(size=(images, classes))
    logits[np.arange(images), labels] += 1.5
    if shape == "never_predict_first":
        logits[:, 0] -= 100
    if shape == "last_absent":
        logits[:, -1] -= 100
    # Written with 3 decimals (a short file); the runner's logits are floats. No logit equals the
    # true class's: scikit-learn ranks equal scores by a stable sort, higher class first, where
    # the runner (as its prediction, the first largest logit) puts the lower class first.
    logits = np.round(logits, 3)
    for row, label in enumerate(labels):
        while np.sum(logits[row] == logits[row, label]) > 1:
            logits[row, label] += 0.001
    return labels, logits.astype(np.float32)


def main():
    cases = []
    for name, images, classes, ks, seed, shape in CASES:
        labels, logits = make(images, classes, seed, shape)
        scores = logits.astype(np.float64)
        predicted = np.argmax(scores, axis=1)
        everything = list(range(classes))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            warnings.simplefilter("ignore", UserWarning)
            precision, recall, f1, support = precision_recall_fscore_support(
                labels, predicted, labels=everything, average=None, zero_division=0)
            cases.append({
                "name": name,
                "classes": classes,
                "labels": labels.tolist(),
                "logits": [round(float(v), 3) for v in logits.reshape(-1)],
                "top_k": {str(k): top_k_accuracy_score(labels, scores, k=k, labels=everything)
                          for k in ks},
                "balanced_accuracy": balanced_accuracy_score(labels, predicted),
                "macro_f1": f1_score(labels, predicted, average="macro"),
                "precision": precision.tolist(),
                "recall": recall.tolist(),
                "f1": f1.tolist(),
                "support": support.tolist(),
            })
    out = os.path.join(os.path.dirname(__file__), "..", "tests", "metrics", "metrics_golden.json")
    with open(out, "w") as f:
        json.dump({"source": "scikit-learn " + __import__("sklearn").__version__, "cases": cases}, f)
        f.write("\n")


if __name__ == "__main__":
    main()
