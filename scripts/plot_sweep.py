#!/usr/bin/env python3
"""Plots of a sweep's summary.json (written by `runner sweep` and `runner report`).

Usage: plot_sweep.py SWEEP_DIR    -> SWEEP_DIR/plots/{throughput,speedup,utilisation,accuracy}.{png,svg}

Only completed points are drawn. A plot without data (no GPU points, no trained points) still
gets written, saying why it is empty, so a report always has the same four figures.
"""
import json
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402


def load_rows(sweep_dir):
    with open(os.path.join(sweep_dir, "summary.json")) as f:
        summary = json.load(f)
    rows = [r for r in summary["points"] if r["status"] == "completed"]
    return summary, rows


def is_gpu(device):
    return isinstance(device, str) and device.startswith("cuda")


def width_text(width):
    return "?" if width is None else f"{width:g}"


def series(rows, key, x, y):
    """Groups rows by key(row) into sorted (xs, ys) lists, skipping rows without x or y."""
    groups = defaultdict(list)
    for r in rows:
        if r.get(x) is not None and r.get(y) is not None:
            groups[key(r)].append((r[x], r[y]))
    return {k: ([p[0] for p in sorted(v)], [p[1] for p in sorted(v)]) for k, v in sorted(groups.items())}


def empty_note(ax, text):
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, wrap=True,
            fontsize=11, color="0.35")


def draw(ax, groups, label, scale=1.0):
    for key, (xs, ys) in groups.items():
        ax.plot(xs, [scale * v for v in ys], marker="o", label=label(key))
    if groups:
        ax.legend(fontsize=9)
    ax.grid(True, which="both", alpha=0.3)


def log_batch_axis(ax, groups):
    """Log2 x axis ticked at the batch sizes (or widths) themselves, written as plain numbers."""
    xs = sorted({x for xs, _ in groups.values() for x in xs})
    ax.set_xscale("log", base=2)
    ax.set_xticks(xs)
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(ticker.NullFormatter())


def plain_log_y(ax, groups):
    """Log y axis in plain numbers; minor ticks labelled only when the data spans under a decade."""
    ys = [y for _, values in groups.values() for y in values if y > 0]
    ax.set_yscale("log")
    plain = ticker.FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}")
    ax.yaxis.set_major_formatter(plain)
    narrow = ys and max(ys) / min(ys) < 10
    ax.yaxis.set_minor_formatter(plain if narrow else ticker.NullFormatter())


def save(fig, sweep_dir, name):
    out = os.path.join(sweep_dir, "plots")
    os.makedirs(out, exist_ok=True)
    paths = []
    for ext in ("png", "svg"):
        path = os.path.join(out, f"{name}.{ext}")
        fig.savefig(path, dpi=120, bbox_inches="tight")
        paths.append(path)
    plt.close(fig)
    print("plot:", " ".join(paths))


def figure(summary, sweep_dir, name, title, xlabel, ylabel, groups, label, empty, scale=1.0, style=None):
    """One figure: a line per group on a log2 x axis, or a note saying why there is no data."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    draw(ax, groups, label, scale)
    if groups:
        log_batch_axis(ax, groups)
        if style:
            style(ax, groups)
    else:
        empty_note(ax, empty)
    ax.set_title(f"{title} ({summary['sweep']})")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    save(fig, sweep_dir, name)


def ones_line(ax, groups):
    ax.axhline(1.0, color="0.5", linestyle="--", linewidth=1)


BATCH = "batch size (images per step)"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sweep_dir = sys.argv[1]
    summary, rows = load_rows(sweep_dir)
    by_device_width = lambda r: (r["device"], r["width"] or 0)  # noqa: E731
    gpu_rows = [r for r in rows if is_gpu(r["device"])]
    figure(summary, sweep_dir, "throughput", "Training throughput vs batch size", BATCH,
           "throughput (images/s, median step)",
           series(rows, by_device_width, "batch_size", "images_per_second"),
           lambda k: f"{k[0]}, width {width_text(k[1])}", "no completed points", style=plain_log_y)
    figure(summary, sweep_dir, "speedup", "GPU speedup over the CPU vs batch size", BATCH,
           "speedup (GPU images/s / CPU images/s)",
           series(gpu_rows, by_device_width, "batch_size", "speedup_over_cpu"),
           lambda k: f"{k[0]} over cpu, width {width_text(k[1])}",
           "no GPU data: no completed GPU point with a matching CPU point\n"
           "(run a sweep over device: [cpu, cuda] on a machine with a GPU)", style=ones_line)
    for r in rows:  # each point's own device: NVML's GPU busy time, or the CPU threads' time
        r["utilisation"] = r.get("gpu_utilisation") if is_gpu(r["device"]) else r.get("cpu_utilisation")
    figure(summary, sweep_dir, "utilisation", "Device utilisation during training vs batch size", BATCH,
           "utilisation (% of GPU busy time, or of the CPU threads' time)",
           series(rows, lambda r: (r["device"], r["width"] or 0, r.get("threads") or 0), "batch_size",
                  "utilisation"),
           lambda k: f"{k[0]}, width {width_text(k[1])}" + ("" if is_gpu(k[0]) else f", {k[2]} threads"),
           "no utilisation figures in the reports", scale=100.0,
           style=lambda ax, groups: ax.set_ylim(bottom=0))
    figure(summary, sweep_dir, "accuracy", "Test accuracy vs model width",
           "model width (multiplier of channels and features)", "test accuracy (%)",
           series(rows, lambda r: (r["device"], r["batch_size"] or 0), "width", "test_accuracy"),
           lambda k: f"{k[0]}, batch {k[1]}",
           "no test accuracy: the points were benchmarks, not trained\n"
           "(run a sweep with mode: train, e.g. configs/sweeps/width.yaml)", scale=100.0)


if __name__ == "__main__":
    main()
