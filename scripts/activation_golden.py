#!/usr/bin/python3
"""Writes tests/backends/activation_golden.json: PyTorch's value and autograd derivative of each
element-wise activation the runner has, at points on every piece and exactly on the kinks (0 and
6 for ReLU6; -3 and 3 for Hardswish and Hardsigmoid), so that
tests/backends/activation_golden_test.cpp can check the GPU kernels' arithmetic
(backends/common/activation_math.h), the CPU backend and the reference model against PyTorch
without torch at test time.

Each point is its own one-element float64 tensor: PyTorch's scalar kernels. Its vectorised CPU
loop for Hardswish's backward differs at exactly x = 3 (1 instead of the scalar loop's and the
CUDA kernel's 3/2; `vectorised_hardswish_at_3` records it), so the runner follows the scalar one.

Run with a Python that has torch (Debian: /usr/bin/python3 with python3-torch):
/usr/bin/python3 scripts/activation_golden.py"""
import json
import os

import torch
import torch.nn as nn

POINTS = [-6.5, -3.5, -3.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0, 3.5, 6.0, 6.5]
NEGATIVE_SLOPE = 0.1

MODULES = {
    "leaky_relu": nn.LeakyReLU(NEGATIVE_SLOPE),
    "gelu": nn.GELU(),
    "gelu_tanh": nn.GELU(approximate="tanh"),
    "sigmoid": nn.Sigmoid(),
    "tanh": nn.Tanh(),
    "silu": nn.SiLU(),
    "relu6": nn.ReLU6(),
    "hardswish": nn.Hardswish(),
    "hardsigmoid": nn.Hardsigmoid(),
}


def value_and_derivative(module, x):
    t = torch.tensor([x], dtype=torch.float64, requires_grad=True)
    y = module(t)
    y.backward(torch.ones_like(y))
    return y.item(), t.grad.item()


def vectorised_hardswish_at_3():
    t = torch.full((64,), 3.0, requires_grad=True)
    nn.Hardswish()(t).sum().backward()
    return t.grad[0].item()


def main():
    kinds = {}
    for name, module in MODULES.items():
        pairs = [value_and_derivative(module, x) for x in POINTS]
        kinds[name] = {"module": repr(module), "y": [p[0] for p in pairs],
                       "dydx": [p[1] for p in pairs]}
    golden = {"generator": "scripts/activation_golden.py", "torch_version": torch.__version__,
              "negative_slope": NEGATIVE_SLOPE, "x": POINTS, "kinds": kinds,
              "vectorised_hardswish_at_3": vectorised_hardswish_at_3()}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "backends",
                        "activation_golden.json")
    with open(path, "w") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
