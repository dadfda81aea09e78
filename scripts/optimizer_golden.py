#!/usr/bin/python3
"""Writes tests/backends/optimizer_golden.json: PyTorch's parameters and optimizer state after
each of a few training steps of a tiny model (flatten + linear) under each optimizer
configuration the runner supports (SGD, Adam, AdamW; weight_decay_exclude as parameter groups;
training.clip_grad_norm as torch.nn.utils.clip_grad_norm_, with the norm it returned; a momentum
or beta1 changed before each step, as one_cycle's cycle_momentum does), so that
tests/backends/optimizer_golden_test.cpp can check the CPU backend against PyTorch without torch
at test time.

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
# dampening 0). A large lr * weight_decay in the AdamW cases: decay applied as Adam's (coupled)
# would miss PyTorch's numbers by far more than the test's tolerance.
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
    "adamw_defaults": {"type": "adamw", "lr": 0.001},
    "adamw_weight_decay": {"type": "adamw", "lr": 0.02, "weight_decay": 0.5},
    "adamw_betas_eps": {"type": "adamw", "lr": 0.02, "beta1": 0.8, "beta2": 0.99, "eps": 1e-3,
                        "weight_decay": 0.2},
    "adamw_exclude_bias":
        {"type": "adamw", "lr": 0.02, "weight_decay": 0.5, "weight_decay_exclude": ["bias"]},
    "adam_exclude_bias":
        {"type": "adam", "lr": 0.01, "weight_decay": 0.1, "weight_decay_exclude": ["bias"]},
    "sgd_momentum_exclude_bias_norm": {"type": "sgd", "lr": 0.1, "momentum": 0.9,
                                       "weight_decay": 0.05,
                                       "weight_decay_exclude": ["bias", "norm"]},
}

# name -> training.clip_grad_norm and the optimizer section; max norms below the gradients'
# (about 1 here) so that the steps are clipped.
CLIP_CASES = {
    "sgd_clip": (0.25, {"type": "sgd", "lr": 0.1, "momentum": 0.9}),
    "adamw_clip": (0.1, {"type": "adamw", "lr": 0.02, "weight_decay": 0.5}),
    "sgd_clip_not_reached": (1000.0, {"type": "sgd", "lr": 0.1}),
}

# name -> the momentum (SGD) or beta1 (Adam, AdamW) set before each step, and the optimizer.
MOMENTUM_CASES = {
    "sgd_nesterov_momentum_per_step": ([0.95, 0.85, 0.5, 0.9],
                                       {"type": "sgd", "lr": 0.1, "momentum": 0.9,
                                        "nesterov": True, "weight_decay": 0.05}),
    "adamw_beta1_per_step": ([0.95, 0.85, 0.7, 0.9],
                             {"type": "adamw", "lr": 0.02, "weight_decay": 0.2}),
}


def set_momentum(optimizer, momentum):
    for group in optimizer.param_groups:
        if "betas" in group:
            group["betas"] = (momentum, group["betas"][1])
        else:
            group["momentum"] = momentum


def param_groups(spec, named):
    """weight_decay_exclude: bias puts the *.bias parameters in a group without decay (this model
    has no normalisation layer, so norm excludes nothing)."""
    if "bias" not in spec.get("weight_decay_exclude", []):
        return [{"params": list(named.values())}]
    return [{"params": [p for n, p in named.items() if not n.endswith(".bias")]},
            {"params": [p for n, p in named.items() if n.endswith(".bias")], "weight_decay": 0.0}]


def make_optimizer(spec, named):
    groups = param_groups(spec, named)
    if spec["type"] in ("adam", "adamw"):
        adam = torch.optim.AdamW if spec["type"] == "adamw" else torch.optim.Adam
        # PyTorch's defaults: AdamW decays by 0.01, Adam by 0.
        decay = spec.get("weight_decay", 0.01 if spec["type"] == "adamw" else 0)
        return adam(groups, lr=spec["lr"], betas=(spec.get("beta1", 0.9), spec.get("beta2", 0.999)),
                    eps=spec.get("eps", 1e-8), weight_decay=decay)
    return torch.optim.SGD(groups, lr=spec["lr"], momentum=spec.get("momentum", 0),
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


def train(spec, initial, batches, dtype, clip_grad_norm=None, momenta=None):
    """The parameters and optimizer state (runner's names) after each step, and with
    clip_grad_norm the gradients' global norm before clipping at each step; with momenta, each
    step's momentum (or beta1) is set before it."""
    weight = torch.tensor(initial["fc.weight"], dtype=dtype).requires_grad_()
    bias = torch.tensor(initial["fc.bias"], dtype=dtype).requires_grad_()
    named = {"fc.weight": weight, "fc.bias": bias}
    # foreach=False: the plain per-parameter loop, the reference formulation.
    optimizer = make_optimizer(spec, named)
    for group in optimizer.param_groups:
        group["foreach"] = False
    after, norms = [], []
    for step, (images, labels) in enumerate(batches):
        if momenta is not None:
            set_momentum(optimizer, momenta[step])
        optimizer.zero_grad()
        logits = normalized(images, dtype).flatten(1) @ weight.T + bias
        F.cross_entropy(logits, torch.from_numpy(labels).long()).backward()
        if clip_grad_norm is not None:
            norms.append(float(torch.nn.utils.clip_grad_norm_([weight, bias], clip_grad_norm)))
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
    return after, norms


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
    cases = [(name, None, spec, None) for name, spec in CASES.items()]
    cases += [(name, clip, spec, None) for name, (clip, spec) in CLIP_CASES.items()]
    cases += [(name, None, spec, momenta) for name, (momenta, spec) in MOMENTUM_CASES.items()]
    for name, clip, spec, momenta in cases:
        steps32, norms = train(spec, initial, batches, torch.float32, clip, momenta)
        steps64, _ = train(spec, initial, batches, torch.float64, clip, momenta)
        case = {"name": name, "optimizer": spec,
                "float64_max_difference": max_difference(steps32, steps64), "steps": steps32}
        if clip is not None:
            case["clip_grad_norm"] = clip
            case["grad_norms"] = norms
        if momenta is not None:
            case["momenta"] = momenta
        golden["cases"].append(case)
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
