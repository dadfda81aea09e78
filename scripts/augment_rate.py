#!/usr/bin/python3
"""How fast dataset.augment runs, against torchvision on the same images: the runner trains one
epoch of a config with its loader on one thread and reports data.augment_images_per_second (the
images each loader thread augments per second); torchvision applies the same steps
(scripts/pytorch_peer.py's recipe_transform: PIL images, as its reference recipes, then
RandomErasing on the normalised tensor) to the same images on one thread, and the ratio is
printed. Run with Debian's Python (torchvision):

    /usr/bin/python3 scripts/augment_rate.py CONFIG [--images N] [--repeats R]

CONFIG is a runner config whose dataset has dataset.augment (its resolved steps are used on
both sides). Each side runs R times; the median and the range are printed.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import pytorch_peer  # noqa: E402  (scripts/: the recipe's torchvision transforms)


def runner_rate(args, output):
    """data.augment_images_per_second of one epoch on a single loader thread."""
    command = [str(args.runner), args.config, "--quiet", "--output", output,
               "--set", "training.epochs=1", "--set", "training.threads=1",
               "--set", "dataset.workers=1", "--set", f"dataset.train_limit={args.images}",
               "--set", "dataset.test_limit=100", "--set", "checkpoint.path=",
               "--set", "device=cpu"]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    reports = sorted(Path(output).rglob("report.json"), key=os.path.getmtime)
    report = json.loads(reports[-1].read_text())
    return report["data"]["augment_images_per_second"], report["config"]


def torchvision_rate(config, images):
    steps = config["dataset"]["augment"]
    start = time.perf_counter()
    batch = pytorch_peer.augment(images, steps, torch.Generator().manual_seed(0))
    pytorch_peer.erase(pytorch_peer.normalise(batch, config["dataset"]), steps)
    return len(images) / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config")
    parser.add_argument("--runner", type=Path, default=ROOT / "build" / "runner")
    parser.add_argument("--images", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(1)
    runner_rates, torch_rates = [], []
    with tempfile.TemporaryDirectory() as output:
        for _ in range(args.repeats):
            rate, config = runner_rate(args, output)
            runner_rates.append(rate)
            images = pytorch_peer.load_split(config["dataset"], True)[0][:args.images]
            torch_rates.append(torchvision_rate(config, images))
    fmt = lambda rates: (f"{statistics.median(rates):,.0f} images/s "
                         f"({min(rates):,.0f}-{max(rates):,.0f})")
    print(f"steps: {json.dumps(config['dataset']['augment'])}")
    print(f"images: {len(images)} of {tuple(images.shape[1:])}, one thread each, "
          f"{args.repeats} runs")
    print(f"runner:      {fmt(runner_rates)}")
    print(f"torchvision: {fmt(torch_rates)}")
    print(f"ratio of medians: {statistics.median(runner_rates) / statistics.median(torch_rates):.2f}x")


if __name__ == "__main__":
    main()
