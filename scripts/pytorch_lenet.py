#!/usr/bin/env python3
"""The PyTorch peer of the benchmark: the CIFAR-10 tutorial's LeNet and its usual eager loop
(zero_grad, forward, loss, backward, step) on the runner's own synthetic images (rebuilt byte
for byte by synthetic_data.py) held in memory as uint8, normalised per batch as torchvision's
ToTensor + Normalize would. Prints one JSON line of measurements; its mean loss over the timed
steps is comparable with `runner bench`'s. --math, --memory-format and --precision as
peer_settings.py describes them (TF32, channels_last, bf16 autocast)."""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

import peer_settings  # scripts/: the settings both peers share


def runner_synthetic_images(count):
    """configs/bench/lenet_cifar_synthetic.yaml's training images and labels (3x32x32, 10
    classes, seed 0), built in a child process so its scratch memory is not counted here."""
    import numpy as np
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "synthetic_data.py")
    with tempfile.NamedTemporaryFile() as out:
        subprocess.run([sys.executable, script, "3", "32", "32", "10", str(count), "0", out.name],
                       check=True)
        data = np.fromfile(out.name, dtype=np.uint8)
    images = data[:count * 3072].reshape(count, 3, 32, 32)
    labels = data[count * 3072:].view(np.int32)
    return torch.from_numpy(images.copy()), torch.from_numpy(labels.copy()).long()


class Net(nn.Module):
    def __init__(self, width=1, channels=3, size=32, classes=10):
        super().__init__()
        c1, c2, f1, f2 = (max(1, round(n * width)) for n in (6, 16, 120, 84))
        self.conv1 = nn.Conv2d(channels, c1, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(c1, c2, 5)
        side = ((size - 4) // 2 - 4) // 2
        self.fc1 = nn.Linear(c2 * side * side, f1)
        self.fc2 = nn.Linear(f1, f2)
        self.fc3 = nn.Linear(f2, classes)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


def share_wait(step_times, last):
    """Waits for the GPU and adds an equal share of the wait to the last `last` step times."""
    t = time.perf_counter()
    torch.cuda.synchronize()
    wait = time.perf_counter() - t
    for i in range(len(step_times) - last, len(step_times)):
        step_times[i] += wait / last


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--width", type=float, default=1)
    parser.add_argument("--images", type=int, default=5000, help="dataset size held in memory")
    parser.add_argument("--seconds", type=float, default=3.0, help="timed training time, about")
    parser.add_argument("--steps", type=int, default=0,
                        help="exactly this many timed steps instead (as `runner bench --steps`)")
    parser.add_argument("--warmup-steps", type=int, default=20)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--seed", type=int, default=0, help="the weights' (the data are fixed)")
    peer_settings.add_arguments(parser)
    args = parser.parse_args()
    peer_settings.apply_math(args.math)
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    device = torch.device(args.device)
    images, labels = runner_synthetic_images(args.images)
    images, labels = images.to(device), labels.to(device)
    net = peer_settings.prepare_model(Net(args.width).to(device), args)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
    batches = args.images // args.batch_size

    def step(i):
        start = (i % batches) * args.batch_size
        x = peer_settings.prepare_input(
            (images[start:start + args.batch_size].float() / 255 - 0.5) / 0.5, args)
        y = labels[start:start + args.batch_size]
        optimizer.zero_grad()
        with peer_settings.autocast(args, device):
            loss = criterion(net(x), y)
        loss.backward()
        optimizer.step()
        return loss

    for i in range(args.warmup_steps):
        step(i)
    if device.type == "cuda":
        torch.cuda.synchronize()
    # On a GPU the loop runs ahead of the device, as the usual loop does; it waits every 50 steps
    # (where `runner bench` reads its loss) and shares the wait among those steps' times.
    steps, losses, step_times = 0, [], []
    begin = time.perf_counter()
    while (steps < args.steps if args.steps else time.perf_counter() - begin < args.seconds or steps < 10):
        t = time.perf_counter()
        losses.append(step(args.warmup_steps + steps))
        step_times.append(time.perf_counter() - t)
        steps += 1
        if device.type == "cuda" and steps % 50 == 0:
            share_wait(step_times, 50)
    if device.type == "cuda":
        share_wait(step_times, steps % 50)
    elapsed = time.perf_counter() - begin
    step_times.sort()
    print(json.dumps({
        "peer": "pytorch", "torch_version": torch.__version__, "threads": torch.get_num_threads(),
        **peer_settings.describe(args),
        "device": str(device), "seed": args.seed, "batch_size": args.batch_size,
        "width": args.width, "steps": steps,
        # From the median step, as `runner bench` and pytorch_peer.py bench give theirs: a step
        # that a busy machine slowed counts no more on one side than on the other.
        "images_per_second": args.batch_size / step_times[len(step_times) // 2],
        "images_per_second_whole_run": steps * args.batch_size / elapsed,
        "step_seconds_p10": step_times[len(step_times) // 10],
        "step_seconds_p50": step_times[len(step_times) // 2],
        "step_seconds_p90": step_times[9 * len(step_times) // 10],
        "mean_loss": float(torch.stack(losses).mean()),
        "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    }))


if __name__ == "__main__":
    main()
