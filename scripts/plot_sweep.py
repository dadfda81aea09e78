#!/usr/bin/env python3
"""Plots of a sweep's summary.json (written by `runner sweep` and `runner report`).

Usage: plot_sweep.py SWEEP_DIR
  -> SWEEP_DIR/plots/{throughput,speedup,utilisation,accuracy,loss_epochs,loss_steps,
                      accuracy_epochs}.{png,svg}

Each marker is a point group: the mean over its completed runs (its repeats, one seed each), with
error bars: the standard deviation over the runs for accuracy, utilisation and speedup, and for
throughput the images per second at the 10th and 90th percentile of the step times (the mean of
the runs' percentiles). The x axis is the swept axis (training.batch_size first, then
model.width, then the first other numeric axis); every other swept axis makes a line of its own,
named in the legend. `loss_epochs` draws each point group's training and test loss per epoch
(mean over the repeats, std shaded). `loss_steps` and `accuracy_epochs` draw, a line per point
group, the training loss at each log point against the step and the test accuracy after each epoch
(the rows' `curves`, as scripts/plot_run.py draws one run's; mean over the repeats at each step or
epoch, std shaded when a group has more than one run). A plot without data (no GPU points, a benchmark sweep) still
gets written, saying why it is empty, so a report always has the same figures. Summaries of older
runners (no `groups`, no `axes`) are drawn with each completed row as a group of one. Sweeps of
runs with a validation set (dataset.validation_split) also get `val_accuracy` (against the swept
axis) and `val_accuracy_epochs` (per epoch, as accuracy_epochs). A random search (summary.json's
`search`) also gets `search`: its metric against each searched value, the best point starred, a
log axis for the values drawn log-uniformly.
"""
import json
import math
import os
import statistics
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_run  # noqa: E402  (one run's curves: the sweep's curve plots draw theirs the same way)

FIGURES = ("images_per_second", "step_time_p10_seconds", "step_time_p90_seconds", "cpu_utilisation",
           "gpu_utilisation", "speedup_over_cpu", "test_accuracy", "test_loss", "val_accuracy", "val_loss",
           "final_loss")
AXIS_LABELS = {
    "training.batch_size": "batch size (images per step)",
    "model.width": "model width (multiplier of channels and features)",
}
PREFERRED_X = ("training.batch_size", "model.width")


def one_run_stats(value):
    if value is None:
        return {"n": 0, "mean": None, "std": None, "min": None, "max": None}
    return {"n": 1, "mean": value, "std": None, "min": value, "max": value}


def group_of_one(row):
    """An older summary's row as a group of one run."""
    completed = row["status"] == "completed"
    return {
        "id": row["id"], "values": {k: v for k, v in (row.get("values") or {}).items() if k != "seed"},
        "device": row.get("device"), "batch_size": row.get("batch_size"), "width": row.get("width"),
        "runs": 1, "completed": 1 if completed else 0, "points": [row["id"]],
        "stats": {f: one_run_stats(row.get(f) if completed else None) for f in FIGURES},
        "epochs": [{"epoch": e["epoch"], "train_loss": one_run_stats(e.get("train_loss")),
                    "test_loss": one_run_stats(e.get("test_loss"))} for e in row.get("epoch_losses") or []],
    }


TRAINED = ("completed", "stopped_early")


def load(sweep_dir):
    with open(os.path.join(sweep_dir, "summary.json")) as f:
        summary = json.load(f)
    groups = summary.get("groups")
    if groups is None:
        groups = [group_of_one(r) for r in summary["points"]]
    axes = summary.get("axes")
    if axes is None:
        axes = []
        for g in groups:
            axes += [k for k in g["values"] if k not in axes]
    # Curves are drawn for every run that trained as planned: a search's trials that ASHA
    # stopped at a rung too (their lines end there).
    ended = {r["id"] for r in summary["points"] if r.get("status") in TRAINED}
    trained = [g for g in groups if any(p in ended for p in g.get("points", []))]
    return summary, [g for g in groups if g["completed"] > 0], axes, trained


def is_gpu(device):
    return isinstance(device, str) and device.startswith("cuda")


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def short(path):
    return path.rsplit(".", 1)[-1].split("[")[0]


def value_text(value):
    if is_number(value):
        return f"{value:g}"
    return value if isinstance(value, str) else json.dumps(value)


class Layout:
    """Which swept axis is the x axis, and which make separate lines."""

    def __init__(self, groups, axes):
        varied = [a for a in axes if len({json.dumps(g["values"].get(a)) for g in groups}) > 1]
        numeric = [a for a in varied if all(is_number(g["values"].get(a)) for g in groups)]
        choices = [a for a in PREFERRED_X if a in numeric] + numeric + varied
        self.x = choices[0] if choices else None
        self.lines = [a for a in varied if a != self.x]
        self.label = AXIS_LABELS.get(self.x, self.x) if self.x else AXIS_LABELS["training.batch_size"]
        self.numeric = self.x is None or self.x in numeric
        # Without a swept axis (a folder of single runs): batch size on x, a line per device and width.
        self.categories = sorted({value_text(self.x_value(g)) for g in groups}) if not self.numeric else []

    def x_value(self, group):
        return group["values"].get(self.x) if self.x else group.get("batch_size")

    def position(self, group):
        value = self.x_value(group)
        return value if self.numeric else self.categories.index(value_text(value))

    def line_key(self, group):
        if self.x is None:
            return (("device", group.get("device")), ("width", group.get("width")))
        return tuple((short(a), group["values"].get(a)) for a in self.lines)

    def line_label(self, key):
        return ", ".join(f"{name}={value_text(value)}" for name, value in key) or "all points"


def series(layout, groups, y):
    """Per line: the groups' (x, y, (below, above)) sorted by x; `y(group)` gives (mean, below, above)
    or None."""
    lines = defaultdict(list)
    for g in groups:
        x = layout.position(g)
        point = y(g)
        if x is None or point is None or point[0] is None:
            continue
        lines[layout.line_key(g)].append((x, *point))
    return {k: sorted(v, key=lambda p: p[0]) for k, v in sorted(lines.items(), key=lambda kv: json.dumps(kv[0]))}


def mean_std(figure, scale=1.0):
    """(mean, std below, std above) of a group's figure, scaled."""
    def y(g):
        s = g["stats"].get(figure) or {}
        if s.get("mean") is None:
            return None
        spread = scale * (s.get("std") or 0.0)
        return scale * s["mean"], spread, spread
    return y


def throughput(g):
    """Mean images/s, with bars to the images/s at the mean p90 and p10 step times."""
    s = g["stats"]
    mean = s["images_per_second"]["mean"]
    if mean is None:
        return None
    p10, p90, batch = s["step_time_p10_seconds"]["mean"], s["step_time_p90_seconds"]["mean"], g.get("batch_size")
    if not (batch and p10 and p90):
        return mean, 0.0, 0.0
    return mean, max(0.0, mean - batch / p90), max(0.0, batch / p10 - mean)


def empty_note(ax, text):
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, wrap=True,
            fontsize=11, color="0.35")


def draw(ax, layout, lines):
    for key, points in lines.items():
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        err = [[p[2] for p in points], [p[3] for p in points]]
        ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=layout.line_label(key))
    if lines and list(lines) != [()]:  # a legend when there are lines to tell apart
        ax.legend(fontsize=9)
    ax.grid(True, which="both", alpha=0.3)


def x_axis(ax, layout, lines):
    """Log2 x axis ticked at the values themselves when they span a factor of 4 or more; the
    categories' names when the axis is not numeric."""
    if not layout.numeric:
        ax.set_xticks(range(len(layout.categories)))
        ax.set_xticklabels(layout.categories)
        return
    xs = sorted({p[0] for points in lines.values() for p in points})
    if xs and min(xs) > 0 and max(xs) / min(xs) >= 4:
        ax.set_xscale("log", base=2)
    ax.set_xticks(xs)
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(ticker.NullFormatter())


def plain_log_y(ax, lines):
    """Log y axis in plain numbers; minor ticks labelled only when the data spans under a decade."""
    ys = [y for points in lines.values() for p in points for y in (p[1] - p[2], p[1] + p[3]) if y > 0]
    ax.set_yscale("log")
    plain = ticker.FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}")
    ax.yaxis.set_major_formatter(plain)
    narrow = ys and max(ys) / min(ys) < 10
    ax.yaxis.set_minor_formatter(plain if narrow else ticker.NullFormatter())
    return ""


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


def figure(summary, sweep_dir, layout, name, title, ylabel, lines, empty, style=None):
    """One figure: a line per combination of the other axes, or a note saying why there is no
    data. `style(ax, lines)` may return a note for the title."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    draw(ax, layout, lines)
    note = ""
    if lines:
        x_axis(ax, layout, lines)
        if style:
            note = style(ax, lines) or ""
    else:
        empty_note(ax, empty)
    x_name = short(layout.x).replace("_", " ") if layout.x else "batch size"
    ax.set_title(f"{title} vs {x_name}{note} ({summary['sweep']})")
    ax.set_xlabel(layout.label)
    ax.set_ylabel(ylabel)
    save(fig, sweep_dir, name)


def ones_line(ax, lines):
    ax.axhline(1.0, color="0.5", linestyle="--", linewidth=1)


def from_zero(ax, lines):
    ax.set_ylim(bottom=0)


def accuracy_range(ax, lines):
    """From 0, unless every bar is above 50 %: then zoomed, and the title says so."""
    low = min(p[1] - p[2] for points in lines.values() for p in points)
    high = max(p[1] + p[3] for points in lines.values() for p in points)
    if low <= 50:
        ax.set_ylim(0, max(100.0, high))
        return ""
    bottom = max(0.0, math.floor(low - 0.1 * max(high - low, 1.0)))
    ax.set_ylim(bottom, min(100.0, high + 0.1 * max(high - low, 1.0)))
    return f" (zoomed: the axis starts at {bottom:g} %)"


def loss_epochs(summary, sweep_dir, groups):
    """Training and test loss per epoch, a panel per point group: mean over repeats, std shaded."""
    trained = [g for g in groups if g.get("epochs")]
    columns = min(4, max(1, len(trained)))
    rows = max(1, math.ceil(len(trained) / columns))
    size = (3.6 * columns, 2.8 * rows) if trained else (7, 4.5)
    fig, axes = plt.subplots(rows, columns, figsize=size, squeeze=False, sharey=True)
    for ax in axes.flat[len(trained):]:
        ax.axis("off")
    if not trained:
        axes[0][0].set_xlabel("epoch")
        empty_note(axes[0][0], "no per-epoch losses: the points were benchmarks, not trained\n"
                               "(run a sweep with mode: train)")
    for ax, g in zip(axes.flat, trained):
        for loss, style in (("train_loss", "-"), ("test_loss", "--")):
            epochs = [e for e in g["epochs"] if e[loss]["mean"] is not None]
            xs = [e["epoch"] for e in epochs]
            mean = [e[loss]["mean"] for e in epochs]
            std = [e[loss]["std"] or 0.0 for e in epochs]
            ax.plot(xs, mean, style, marker="o", label=loss.replace("_", " "))
            ax.fill_between(xs, [m - s for m, s in zip(mean, std)], [m + s for m, s in zip(mean, std)],
                            alpha=0.2)
        ax.set_title(f"{g['id']} ({g['completed']} run{'s' if g['completed'] != 1 else ''})", fontsize=9)
        ax.set_xlabel("epoch")
        ax.xaxis.set_major_locator(ticker.MaxNLocator(integer=True))
        ax.grid(True, alpha=0.3)
    axes[0][0].set_ylabel("loss (mean over repeats)")
    if trained:
        axes[0][0].legend(fontsize=8)
    fig.suptitle(f"Training and test loss per epoch ({summary['sweep']})")
    fig.tight_layout()
    save(fig, sweep_dir, "loss_epochs")


def mean_curve(runs, x, y, scale=1.0):
    """(xs, means, stds, most runs at one x) of `y` against `x` over the runs' points: the mean and
    the sample std at each x over the runs that reach it."""
    by_x = defaultdict(list)
    for run in runs:
        for p in run:
            if is_number(p.get(x)) and is_number(p.get(y)):
                by_x[p[x]].append(scale * p[y])
    xs = sorted(by_x)
    means = [statistics.fmean(by_x[v]) for v in xs]
    stds = [statistics.stdev(by_x[v]) if len(by_x[v]) > 1 else 0.0 for v in xs]
    return xs, means, stds, max((len(v) for v in by_x.values()), default=0)


def group_curves(summary, groups, part):
    """Per point group with curves: (group, each trained run's `curves[part]`)."""
    rows = {r["id"]: r for r in summary["points"]
            if r.get("status") in TRAINED and isinstance(r.get("curves"), dict)}
    out = []
    for g in groups:
        runs = [rows[i]["curves"].get(part) or [] for i in g.get("points", []) if i in rows]
        if any(runs):
            out.append((g, runs))
    return out


NO_CURVES = ("no curves in the summary: the points were benchmarks, not trained\n"
             "(run a sweep with --mode train), or the summary is older than curves\n"
             "(run `runner report` on the folder again)")


def curve_figure(summary, sweep_dir, groups, name, part, x, y, scale, title, xlabel, ylabel):
    """A line per point group: `y` against `x` from the rows' curves[part], mean over the group's
    repeats with the std shaded."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    drawn = group_curves(summary, groups, part)
    for g, runs in drawn:
        xs, means, stds, n = mean_curve(runs, x, y, scale)
        label = f"{g['id']} (mean of {n} runs)" if n > 1 else g["id"]
        plot_run.line_with_band(ax, xs, means, stds, marker="o" if x == "epoch" else None,
                                markersize=4, label=label)
    if drawn:
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if x == "epoch":
            ax.xaxis.set_major_locator(ticker.MaxNLocator(integer=True))
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8, ncol=2 if len(drawn) > 8 else 1)
    else:
        plot_run.empty_note(ax, NO_CURVES)
    ax.set_title(f"{title} ({summary['sweep']})")
    save(fig, sweep_dir, name)


METRIC_FIELDS = {"val_accuracy": "val_accuracy", "val_loss": "val_loss", "train_loss": "final_loss"}


def log_paths(sweep_dir):
    """The searched paths drawn from a log distribution (sweep.json's random.space)."""
    try:
        with open(os.path.join(sweep_dir, "sweep.json")) as f:
            space = json.load(f).get("random", {}).get("space", {})
    except (OSError, ValueError, AttributeError):
        return set()
    return {path for path, d in space.items()
            if isinstance(d, dict) and ("log_uniform" in d or "int_log_uniform" in d)}


def search_figure(summary, sweep_dir):
    """A random search's metric against each searched value, a panel per path: a marker per
    completed point, the best one starred; a log axis for values drawn log-uniformly."""
    search = summary.get("search")
    if not isinstance(search, dict):
        return
    paths = [p for p in search.get("paths", []) if isinstance(p, str)]
    metric = search.get("metric", "val_accuracy")
    field = METRIC_FIELDS.get(metric, metric)
    scale = 100.0 if "accuracy" in metric else 1.0
    rows = [r for r in summary["points"] if r.get("status") == "completed" and is_number(r.get(field))]
    best = (summary.get("best") or {}).get("id")
    logs = log_paths(sweep_dir)
    fig, axes = plt.subplots(1, max(len(paths), 1), figsize=(4.2 * max(len(paths), 1), 3.8), squeeze=False)
    for ax, path in zip(axes[0], paths or [None]):
        if not rows or path is None:
            plot_run.empty_note(ax, f"no completed point reported {metric}\n"
                                    "(train mode with dataset.validation_split)")
            continue
        values = [r.get("values", {}).get(path) for r in rows]
        numeric = all(is_number(v) for v in values)
        categories = sorted({value_text(v) for v in values}) if not numeric else []
        xs = values if numeric else [categories.index(value_text(v)) for v in values]
        ys = [r[field] * scale for r in rows]
        ax.scatter(xs, ys, s=22, color="tab:blue", alpha=0.8, label="trials")
        chosen = [(x, y) for x, y, r in zip(xs, ys, rows) if r.get("id") == best]
        if chosen:
            ax.scatter(*zip(*chosen), s=140, marker="*", color="tab:red", label="best", zorder=3)
        if numeric and path in logs and min(xs) > 0:
            ax.set_xscale("log")
        if not numeric:
            ax.set_xticks(range(len(categories)), categories)
        ax.set_xlabel(path)
        ax.set_ylabel(f"{metric}{' (%)' if scale == 100.0 else ''}")
        ax.grid(True, alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.suptitle(f"Random search: {metric} ({search.get('mode', 'max')}) against each searched value "
                 f"({summary['sweep']})", fontsize=10)
    save(fig, sweep_dir, "search")


def has_validation(groups):
    """Whether a point group has validation figures (older summaries and runs without a
    validation split have none)."""
    return any((g.get("stats", {}).get("val_accuracy") or {}).get("n", 0) > 0 for g in groups)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sweep_dir = sys.argv[1]
    summary, groups, axes, trained = load(sweep_dir)
    layout = Layout(groups, axes)
    gpu_groups = [g for g in groups if is_gpu(g.get("device"))]
    figure(summary, sweep_dir, layout, "throughput", "Training throughput",
           "images/s (mean of the median steps; bars: p10–p90 steps)",
           series(layout, groups, throughput), "no completed points", style=plain_log_y)
    figure(summary, sweep_dir, layout, "speedup", "GPU speedup over the CPU",
           "speedup (GPU images/s / CPU images/s)", series(layout, gpu_groups, mean_std("speedup_over_cpu")),
           "no GPU data: no completed GPU point with a matching CPU point\n"
           "(run a sweep over device: [cpu, cuda] on a machine with a GPU)", style=ones_line)
    for g in groups:  # each point's own device: NVML's GPU busy time, or the CPU threads' time
        g["stats"]["utilisation"] = g["stats"].get("gpu_utilisation" if is_gpu(g.get("device")) else "cpu_utilisation")
    figure(summary, sweep_dir, layout, "utilisation", "Device utilisation during training",
           "utilisation (% of GPU busy time, or of the CPU threads' time)",
           series(layout, groups, mean_std("utilisation", 100.0)), "no utilisation figures in the reports",
           style=from_zero)
    figure(summary, sweep_dir, layout, "accuracy", "Test accuracy", "test accuracy (%, mean ± std over repeats)",
           series(layout, groups, mean_std("test_accuracy", 100.0)),
           "no test accuracy: the points were benchmarks, not trained\n"
           "(run a sweep with mode: train, e.g. configs/sweeps/width.yaml)", style=accuracy_range)
    loss_epochs(summary, sweep_dir, groups)
    curve_figure(summary, sweep_dir, trained, "loss_steps", "train", "step", "loss", 1.0,
                 "Training loss per step", "step",
                 "training loss (mean over repeats, std shaded)")
    curve_figure(summary, sweep_dir, groups, "accuracy_epochs", "test", "epoch", "accuracy", 100.0,
                 "Test accuracy per epoch", "epoch",
                 "test accuracy (%, mean over repeats, std shaded)")
    search_figure(summary, sweep_dir)
    if has_validation(groups):  # dataset.validation_split: the figures model selection used
        figure(summary, sweep_dir, layout, "val_accuracy", "Validation accuracy",
               "validation accuracy (%, mean ± std over repeats)",
               series(layout, groups, mean_std("val_accuracy", 100.0)), "no validation accuracy",
               style=accuracy_range)
        curve_figure(summary, sweep_dir, trained, "val_accuracy_epochs", "validation", "epoch",
                     "accuracy", 100.0, "Validation accuracy per epoch", "epoch",
                     "validation accuracy (%, mean over repeats, std shaded)")


if __name__ == "__main__":
    main()
