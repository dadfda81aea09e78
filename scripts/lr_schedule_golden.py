#!/usr/bin/python3
"""Writes tests/train/lr_schedule_golden.json: the learning rate of every training step under
PyTorch's schedulers (torch.optim.lr_scheduler), for each training.schedule type the runner
supports, so that tests/train/lr_schedule_test.cpp checks runner/train/lr_schedule.cpp against
PyTorch without torch at test time.

With cycle_momentum, the momentum of every step too (SGD's momentum, or Adam's beta1), under an
optimizer of that type ("optimizer" in the case).

Run with a Python that has torch: /usr/bin/python3 scripts/lr_schedule_golden.py.
How each config maps onto PyTorch (runner/train/lr_schedule.h): step and multistep are stepped
once per epoch, cosine and one_cycle once per training step; a warm-up is LinearLR(start_factor,
1.0, total_iters=W) with W = round(warmup.epochs * steps_per_epoch), its factor multiplying the
scheduled lr (computed on an optimizer of its own, so the two do not chain)."""
import json
import math
import os

import torch
from torch.optim import lr_scheduler

# name -> (optimizer lr, steps per epoch, epochs, the config's training.schedule)
CASES = {
    "constant_warmup": (0.05, 10, 3, {"type": "constant", "warmup": {"epochs": 0.7, "start_factor": 0.2}}),
    "step": (0.1, 7, 7, {"type": "step", "step_size": 2, "gamma": 0.5}),
    "step_warmup": (0.1, 4, 6, {"type": "step", "step_size": 3, "gamma": 0.2,
                                "warmup": {"epochs": 2, "start_factor": 0.5}}),
    "multistep": (0.1, 5, 7, {"type": "multistep", "milestones": [2, 5], "gamma": 0.1}),
    "cosine": (0.1, 9, 4, {"type": "cosine", "min_lr": 0.001}),
    "cosine_warmup": (0.02, 8, 5, {"type": "cosine", "warmup": {"epochs": 1.5, "start_factor": 0.1}}),
    "one_cycle": (0.1, 10, 5, {"type": "one_cycle"}),
    "one_cycle_settings": (0.3, 7, 3, {"type": "one_cycle", "pct_start": 0.25, "div_factor": 10,
                                       "final_div_factor": 100}),
    "one_cycle_momentum": (0.1, 10, 5, {"type": "one_cycle", "cycle_momentum": True}),
    "one_cycle_beta1_warmup": (0.01, 6, 4, {"type": "one_cycle", "cycle_momentum": True,
                                            "pct_start": 0.4, "base_momentum": 0.8,
                                            "max_momentum": 0.9,
                                            "warmup": {"epochs": 0.5, "start_factor": 0.3}}),
}
ADAM_CASES = {"one_cycle_beta1_warmup"}


def momentum_optimizer(name, lr):
    params = [torch.nn.Parameter(torch.zeros(1))]
    if name in ADAM_CASES:
        return torch.optim.Adam(params, lr=lr)
    return torch.optim.SGD(params, lr=lr, momentum=0.9)


def group_momentum(opt):
    group = opt.param_groups[0]
    return group["betas"][0] if "betas" in group else group["momentum"]


def per_step_momenta(name, lr, steps_per_epoch, epochs, spec):
    """The momentum of each step under OneCycleLR(cycle_momentum=True)."""
    total = steps_per_epoch * epochs
    opt = momentum_optimizer(name, lr)
    s = lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=total,
                                pct_start=spec.get("pct_start", 0.3),
                                base_momentum=spec.get("base_momentum", 0.85),
                                max_momentum=spec.get("max_momentum", 0.95),
                                anneal_strategy="cos", cycle_momentum=True, three_phase=False)
    momenta = []
    for step in range(total):
        momenta.append(group_momentum(opt))
        opt.step()
        if step + 1 < total:
            s.step()
    return momenta


def optimizer(lr):
    return torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=lr)


def per_step_lrs(opt, scheduler, steps):
    """The lr of each of `steps` training steps, the scheduler stepped after each."""
    lrs = []
    for s in range(steps):
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        if s + 1 < steps:  # OneCycleLR refuses a step past total_steps
            scheduler.step()
    return lrs


def per_epoch_lrs(opt, scheduler, steps_per_epoch, epochs):
    lrs = []
    for _ in range(epochs):
        for _ in range(steps_per_epoch):
            lrs.append(opt.param_groups[0]["lr"])
            opt.step()
        scheduler.step()
    return lrs


def scheduled(lr, steps_per_epoch, epochs, spec):
    total = steps_per_epoch * epochs
    opt = optimizer(lr)
    kind = spec["type"]
    if kind == "constant":
        return [lr] * total
    if kind == "step":
        s = lr_scheduler.StepLR(opt, step_size=spec["step_size"], gamma=spec.get("gamma", 0.1))
        return per_epoch_lrs(opt, s, steps_per_epoch, epochs)
    if kind == "multistep":
        s = lr_scheduler.MultiStepLR(opt, milestones=spec["milestones"], gamma=spec.get("gamma", 0.1))
        return per_epoch_lrs(opt, s, steps_per_epoch, epochs)
    if kind == "cosine":
        s = lr_scheduler.CosineAnnealingLR(opt, T_max=total, eta_min=spec.get("min_lr", 0.0))
        return per_step_lrs(opt, s, total)
    if kind == "one_cycle":
        s = lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=total,
                                    pct_start=spec.get("pct_start", 0.3),
                                    div_factor=spec.get("div_factor", 25.0),
                                    final_div_factor=spec.get("final_div_factor", 1e4),
                                    anneal_strategy="cos", cycle_momentum=False, three_phase=False)
        return per_step_lrs(opt, s, total)
    raise ValueError(kind)


def warmup_factors(steps_per_epoch, epochs, warmup):
    total = steps_per_epoch * epochs
    if not warmup:
        return [1.0] * total
    steps = math.floor(warmup["epochs"] * steps_per_epoch + 0.5)  # C++ llround
    opt = optimizer(1.0)
    s = lr_scheduler.LinearLR(opt, start_factor=warmup.get("start_factor", 0.1), end_factor=1.0,
                              total_iters=steps)
    return per_step_lrs(opt, s, total)


def main():
    cases = []
    for name, (lr, steps_per_epoch, epochs, spec) in CASES.items():
        lrs = scheduled(lr, steps_per_epoch, epochs, spec)
        factors = warmup_factors(steps_per_epoch, epochs, spec.get("warmup"))
        case = {"name": name, "lr": lr, "steps_per_epoch": steps_per_epoch, "epochs": epochs,
                "schedule": spec, "lrs": [a * b for a, b in zip(lrs, factors)]}
        if spec.get("cycle_momentum"):
            case["optimizer"] = "adam" if name in ADAM_CASES else "sgd"
            case["momenta"] = per_step_momenta(name, lr, steps_per_epoch, epochs, spec)
        cases.append(case)
    out = os.path.join(os.path.dirname(__file__), "..", "tests", "train", "lr_schedule_golden.json")
    with open(out, "w") as f:
        json.dump({"torch_version": torch.__version__, "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
