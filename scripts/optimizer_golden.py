#!/usr/bin/python3
"""Writes tests/backends/optimizer_golden.json: PyTorch's parameters and optimizer state after
each of a few training steps of a tiny model (flatten + linear) under each optimizer
configuration the runner supports, so that tests/backends/optimizer_golden_test.cpp can check
the CPU backend's SGD and Adam against PyTorch without torch at test time.

Run with a Python that has torch (Debian: apt-get install python3-torch python3-numpy, then
/usr/bin/python3 scripts/optimizer_golden.py). The numbers are float32 as PyTorch computes them;
each case also records how far they are from the same steps in float64, which bounds how exact
a float32 implementation can be expected to match."""
import json
import os
import re
import sys

import numpy as np
import torch
import torch.nn.functional as F

CHANNELS, HEIGHT, WIDTH, CLASSES, BATCH, STEPS = 2, 2, 3, 4, 3, 4
MEAN, STD = [0.4, 0.6], [0.3, 0.2]

# name -> the optimizer section of a config (PyTorch allows nesterov only with momentum > 0 and
# dampening 0).
CASES = {
    "sgd_plain": {"type": "sgd", "lr": 0.1},
    "sgd_weight_decay": {"type": "sgd", "lr": 0.1, "weight_decay": 0.05},
    "sgd_momentum": {"type": "sgd", "lr": 0.1, "momentum": 0.9},
    "sgd_momentum_dampening": {"type": "sgd", "lr": 0.1, "momentum": 0.9, "dampening": 0.3},
    "sgd_momentum_dampening_weight_decay":
        {"type": "sgd", "lr": 0.1, "momentum": 0.8, "dampening": 0.2, "weight_decay": 0.05},
    "sgd_nesterov": {"type": "sgd", "lr": 0.1, "momentum": 0.9, "nesterov": True},
    "sgd_nesterov_weight_decay":
        {"type": "sgd", "lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.05},
    "adam_defaults": {"type": "adam", "lr": 0.001},
    "adam_weight_decay": {"type": "adam", "lr": 0.01, "weight_decay": 0.1},
    "adam_betas_eps": {"type": "adam", "lr": 0.02, "beta1": 0.8, "beta2": 0.99, "eps": 1e-3},
}


def make_optimizer(spec, params):
    if spec["type"] == "adam":
        return torch.optim.Adam(params, lr=spec["lr"],
                                betas=(spec.get("beta1", 0.9), spec.get("beta2", 0.999)),
                                eps=spec.get("eps", 1e-8), weight_decay=spec.get("weight_decay", 0))
    return torch.optim.SGD(params, lr=spec["lr"], momentum=spec.get("momentum", 0),
                           dampening=spec.get("dampening", 0),
                           weight_decay=spec.get("weight_decay", 0),
                           nesterov=spec.get("nesterov", False))


def normalized(images, dtype):
    """(byte / 255 - mean) / std per channel, computed in float64 and rounded once."""
    x = images.astype(np.float64) / 255.0
    x = (x - np.array(MEAN)[None, :, None, None]) / np.array(STD)[None, :, None, None]
    return torch.from_numpy(x).to(dtype)


def as_list(tensor):
    """A tensor's values, float32 ones as the shortest decimals that read back as the same float32
    (float64 ones in full)."""
    values = tensor.detach().flatten()
    if values.dtype == torch.float32:
        return [float(repr(np.float32(x))) for x in values.numpy()]
    return values.tolist()


def train(spec, initial, batches, dtype):
    """The parameters and optimizer state (runner's names) after each step."""
    weight = torch.tensor(initial["fc.weight"], dtype=dtype).requires_grad_()
    bias = torch.tensor(initial["fc.bias"], dtype=dtype).requires_grad_()
    named = {"fc.weight": weight, "fc.bias": bias}
    # foreach=False: the plain per-parameter loop, the reference formulation.
    optimizer = make_optimizer(spec, [weight, bias])
    for group in optimizer.param_groups:
        group["foreach"] = False
    after = []
    for images, labels in batches:
        optimizer.zero_grad()
        logits = normalized(images, dtype).flatten(1) @ weight.T + bias
        F.cross_entropy(logits, torch.from_numpy(labels).long()).backward()
        optimizer.step()
        tensors = {}
        for name, p in named.items():
            tensors[name] = as_list(p)
            for key, value in optimizer.state[p].items():
                if key == "step":
                    tensors["optimizer.step"] = [float(value)]
                elif value is not None:  # plain SGD keeps a None momentum_buffer
                    tensors[f"{name}.{key}"] = as_list(value)
        after.append(tensors)
    return after


def max_difference(a_steps, b_steps):
    return max(abs(x - y) for a, b in zip(a_steps, b_steps) for name in a
               for x, y in zip(a[name], b[name]))


def main():
    rng = np.random.default_rng(20261123)
    features = CHANNELS * HEIGHT * WIDTH
    initial = {"fc.weight": rng.uniform(-0.4, 0.4, (CLASSES, features)).astype(np.float32),
               "fc.bias": rng.uniform(-0.4, 0.4, CLASSES).astype(np.float32)}
    batches = [(rng.integers(0, 256, (BATCH, CHANNELS, HEIGHT, WIDTH), dtype=np.uint8),
                rng.integers(0, CLASSES, BATCH, dtype=np.int32)) for _ in range(STEPS)]
    golden = {
        "generator": "scripts/optimizer_golden.py",
        "torch_version": torch.__version__,
        "input": {"channels": CHANNELS, "height": HEIGHT, "width": WIDTH},
        "classes": CLASSES,
        "normalize": {"mean": MEAN, "std": STD},
        "initial": {name: {"dims": list(v.shape), "values": as_list(torch.from_numpy(v))}
                    for name, v in initial.items()},
        "batches": [{"images": images.flatten().tolist(), "labels": labels.tolist()}
                    for images, labels in batches],
        "cases": [],
    }
    for name, spec in CASES.items():
        steps32 = train(spec, initial, batches, torch.float32)
        steps64 = train(spec, initial, batches, torch.float64)
        golden["cases"].append({"name": name, "optimizer": spec,
                                "float64_max_difference": max_difference(steps32, steps64),
                                "steps": steps32})
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "backends",
        "optimizer_golden.json")
    with open(path, "w") as out:
        text = json.dumps(golden, indent=1)
        # One line per list of numbers.
        text = re.sub(r"\[[-0-9.e,\s]*\]", lambda m: re.sub(r"\s+", " ", m.group(0)), text)
        out.write(text + "\n")
    for case in golden["cases"]:
        print(f"{case['name']}: float32 vs float64 max difference "
              f"{case['float64_max_difference']:.3g}")


if __name__ == "__main__":
    main()
