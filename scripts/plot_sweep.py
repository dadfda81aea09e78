#!/usr/bin/env python3
"""Plots of a sweep's summary.json (written by `runner sweep` and `runner report`).

Usage: plot_sweep.py [--brief] SWEEP_DIR       (--brief: one line for all plots)
  -> SWEEP_DIR/plots/{throughput,speedup,utilisation,accuracy,loss_epochs,loss_steps,
                      accuracy_epochs}.{png,svg}, those that have data

Each marker is a point group: the mean over its completed runs (its repeats, one seed each), with
error bars: the standard deviation over the runs for accuracy, utilisation and speedup, and for
throughput the images per second at the 10th and 90th percentile of the step times (the mean of
the runs' percentiles). The x axis is the swept axis (training.batch_size first, then
model.width, then the first other numeric axis); every other swept axis makes a line of its own,
named in the legend, except the x axis's zip partners (an axis whose value follows from x's in
every group, as zip(batch_size, lr) makes lr): they move along the line and are named under the
x ticks. `loss_epochs` draws each point group's training and test loss per epoch (mean over the
repeats, std shaded). `loss_steps` and `accuracy_epochs` draw, a line per point group, the
training loss at each log point against the step and the test accuracy after each epoch (the
rows' `curves`, as scripts/plot_run.py draws one run's; mean over the repeats at each step or
epoch, std shaded when a group has more than one run); a group whose epochs are shorter than
training.log_every gets its training loss per epoch, at the step that ended each, as markers.
A plot without data (speedup without GPU points, the curves of a benchmark sweep) is not
written, its file from an earlier run of this script is removed, and the script says which it
left out. Summaries of older runners (no `groups`, no `axes`) are drawn with each completed row
as a group of one. Sweeps of runs with a validation set (dataset.validation_split) also get
`val_accuracy` (against the swept axis) and `val_accuracy_epochs` (per epoch, as
accuracy_epochs). A random search (summary.json's `search`) also gets `search`: its metric
against each searched value, the best point starred, a log axis for the values drawn
log-uniformly. Value axes are logarithmic where their positive values span more than a decade.
"""
import json
import math
import os
import statistics
import sys
import textwrap
from collections import defaultdict

sys.dont_write_bytecode = True  # no __pycache__ left in the source tree by the imports below
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_style  # noqa: E402  (the Agg backend and SVG text, set before pyplot is used)
import plot_run  # noqa: E402  (one run's curves: the sweep's curve plots draw theirs the same way)
import matplotlib.pyplot as plt  # noqa: E402

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
    # Every planned group (failed ones too) tells which axes are zipped with the x axis.
    return summary, [g for g in groups if g["completed"] > 0], axes, trained, groups


def is_gpu(device):
    return isinstance(device, str) and device.startswith("cuda")


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def short(path):
    return path.rsplit(".", 1)[-1].split("[")[0]


def value_text(value):
    if is_number(value):
        return plot_style.value_text(value)
    return value if isinstance(value, str) else json.dumps(value)


def follows(groups, x, axis):
    """Whether `axis` has one value per value of the x axis across the groups: a zip partner of x
    (zip(batch_size, lr) with batch size on x makes lr one), which moves along a line instead of
    splitting it. Read from the groups, so older folders are drawn alike."""
    at_x = {}
    for g in groups:
        value = json.dumps(g["values"].get(axis))
        if at_x.setdefault(json.dumps(g["values"].get(x)), value) != value:
            return False
    return True


class Layout:
    """Which swept axis is the x axis, which ones follow it (zip partners, named under its
    ticks) and which make separate lines."""

    def __init__(self, groups, axes, planned=None):
        varied = [a for a in axes if len({json.dumps(g["values"].get(a)) for g in groups}) > 1]
        numeric = [a for a in varied if all(is_number(g["values"].get(a)) for g in groups)]
        choices = [a for a in PREFERRED_X if a in numeric] + numeric + varied
        self.x = choices[0] if choices else None
        others = [a for a in varied if a != self.x]
        self.partners = [a for a in others if follows(planned or groups, self.x, a)]
        self.lines = [a for a in others if a not in self.partners]
        self.label = AXIS_LABELS.get(self.x, self.x) if self.x else AXIS_LABELS["training.batch_size"]
        self.numeric = self.x is None or self.x in numeric
        # Without a swept axis (a folder of single runs): batch size on x, a line per device and width.
        self.categories = sorted({value_text(self.x_value(g)) for g in groups}) if not self.numeric else []
        self.partner_text = {self.position(g): ", ".join(f"{short(a)} {value_text(g['values'].get(a))}"
                                                         for a in self.partners) for g in groups}

    def x_value(self, group):
        return group["values"].get(self.x) if self.x else group.get("batch_size")

    def position(self, group):
        value = self.x_value(group)
        return value if self.numeric else self.categories.index(value_text(value))

    def tick_text(self, position):
        """The x value under its tick, with its zip partners' values beneath ("16\\nlr 0.02")."""
        position = float(position) if self.numeric else int(position)  # a tick's numpy number
        name = value_text(position) if self.numeric else self.categories[position]
        partners = self.partner_text.get(position)
        return f"{name}\n{partners}" if partners else name

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


def draw(ax, layout, lines):
    for key, points in lines.items():
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        err = [[p[2] for p in points], [p[3] for p in points]]
        ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=layout.line_label(key))
    if list(lines) != [()]:  # a legend when there are lines to tell apart
        ax.legend(fontsize=9)
    ax.grid(True, alpha=0.3)  # major lines only: a log axis's minor ones crowd it


def x_axis(ax, layout, lines):
    """Ticks at the swept values (a log2 axis when they span a factor of 4 or more), the zip
    partners' values beneath; the categories' names when the axis is not numeric."""
    xs = sorted({p[0] for points in lines.values() for p in points})
    if not layout.numeric:
        ax.set_xticks(xs, [layout.tick_text(x) for x in xs])
        return
    plot_style.ticks_at_values(ax, "x", xs, label=layout.tick_text)


def bar_ends(lines):
    return [y for points in lines.values() for p in points for y in (p[1] - p[2], p[1] + p[3])]


def throughput_axis(ax, lines):
    plot_style.number_axis(ax, "y", bar_ends(lines))


def speedup_axis(ax, lines):
    plot_style.number_axis(ax, "y", bar_ends(lines) + [1.0])
    ax.axhline(1.0, color="0.5", linestyle="--", linewidth=1)


def from_zero(ax, lines):
    ax.set_ylim(bottom=0)
    plot_style.linear_ticks(ax.yaxis)


def accuracy_range(ax, lines):
    """From 0, unless every bar is above 50 %: then zoomed, and the title says so."""
    low, high = min(bar_ends(lines)), max(bar_ends(lines))
    plot_style.linear_ticks(ax.yaxis)
    if low <= 50:
        ax.set_ylim(0, max(100.0, high))
        return ""
    bottom = max(0.0, math.floor(low - 0.1 * max(high - low, 1.0)))
    ax.set_ylim(bottom, min(100.0, high + 0.1 * max(high - low, 1.0)))
    return f" (zoomed: the axis starts at {bottom:g} %)"


def figure(summary, layout, title, ylabel, lines, y_axis, caption):
    """A line per combination of the other swept axes against the x axis, or None without data.
    `y_axis(ax, lines)` scales and ticks the y axis and may return a note for the title;
    `caption` says what markers and bars are (the y label stays short enough to fit)."""
    if not lines:
        return None
    fig, ax = plt.subplots(figsize=(7, 4.5))
    draw(ax, layout, lines)
    x_axis(ax, layout, lines)
    note = y_axis(ax, lines) or ""
    x_name = short(layout.x).replace("_", " ") if layout.x else "batch size"
    ax.set_title(f"{title} vs {x_name}{note} ({summary['sweep']})")
    ax.set_xlabel(layout.label)
    ax.set_ylabel(ylabel)
    plot_style.caption(ax, caption)
    return fig


def loss_epochs(summary, groups):
    """Training and test loss per epoch, a panel per point group: mean over repeats, std shaded;
    None without trained groups."""
    trained = [g for g in groups if g.get("epochs")]
    if not trained:
        return None
    columns = min(4, len(trained))
    rows = math.ceil(len(trained) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(3.6 * columns, 2.8 * rows), squeeze=False, sharey=True)
    for ax in axes.flat[len(trained):]:
        ax.axis("off")
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
        plot_style.linear_ticks(ax.xaxis, integer=True)
        plot_style.linear_ticks(ax.yaxis)
        ax.grid(True, alpha=0.3)
    axes[0][0].set_ylabel("loss")
    axes[0][0].legend(fontsize=8)
    fig.suptitle(f"Training and test loss per epoch, mean over repeats, std shaded ({summary['sweep']})")
    fig.tight_layout()
    return fig


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


def report_train_images(row):
    """The number of training images in the row's report (data.train_images), or None."""
    try:
        with open(row["report"]) as f:
            return json.load(f).get("data", {}).get("train_images")
    except (KeyError, TypeError, OSError, ValueError):
        return None


def run_points(row, part):
    """(points, per_epoch) of one run's curve: its curves[part]; for the training loss of a run
    with fewer log points than epochs, its loss per epoch at the step that ended each."""
    curves = row.get("curves") or {}
    if part != "train":
        return curves.get(part) or [], False
    return plot_run.training_loss_points(curves, row.get("epoch_losses") or [], row.get("batch_size"),
                                         lambda: report_train_images(row))


def group_curves(summary, groups, part):
    """Per point group with curves: (group, each trained run's points, whether they are per epoch)."""
    rows = {r["id"]: r for r in summary["points"]
            if r.get("status") in TRAINED and isinstance(r.get("curves"), dict)}
    out = []
    for g in groups:
        runs = [run_points(rows[i], part) for i in g.get("points", []) if i in rows]
        if any(points for points, _ in runs):
            out.append((g, [points for points, _ in runs], any(per_epoch for _, per_epoch in runs)))
    return out


def curve_figure(summary, groups, part, x, y, scale, title, xlabel, ylabel):
    """A line per point group: `y` against `x` from the rows' curves[part], mean over the group's
    repeats with the std shaded; None when no group has such a curve (a benchmark sweep)."""
    drawn = group_curves(summary, groups, part)
    if not drawn:
        return None
    fig, ax = plt.subplots(figsize=(7, 4.5))
    most_runs = 0
    for g, runs, per_epoch in drawn:
        xs, means, stds, n = mean_curve(runs, x, y, scale)
        most_runs = max(most_runs, n)
        label = f"{g['id']} (mean of {n} runs)" if n > 1 else g["id"]
        if per_epoch:  # too few steps per epoch for log points: markers, so a short line shows
            label += f": {plot_run.PER_EPOCH}"
        plot_run.line_with_band(ax, xs, means, stds, marker="o" if x == "epoch" or per_epoch else None,
                                markersize=6 if per_epoch else 4, linestyle="--" if per_epoch else "-",
                                label=label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    plot_style.linear_ticks(ax.xaxis, integer=True)
    plot_style.linear_ticks(ax.yaxis)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, ncol=2 if len(drawn) > 8 else 1)
    ax.set_title(f"{title} ({summary['sweep']})")
    if most_runs > 1:
        plot_style.caption(ax, "mean over each group's repeats, std shaded")
    return fig


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
    completed point, the best one starred; a log axis for values drawn log-uniformly. None for a
    sweep that is no search, or a search without a completed point reporting its metric."""
    search = summary.get("search")
    if not isinstance(search, dict):
        return None
    paths = [p for p in search.get("paths", []) if isinstance(p, str)]
    metric = search.get("metric", "val_accuracy")
    field = METRIC_FIELDS.get(metric, metric)
    scale = 100.0 if "accuracy" in metric else 1.0
    rows = [r for r in summary["points"] if r.get("status") == "completed" and is_number(r.get(field))]
    if not (paths and rows):
        return None
    best = (summary.get("best") or {}).get("id")
    logs = log_paths(sweep_dir)
    fig, axes = plt.subplots(1, len(paths), figsize=(4.2 * len(paths), 3.8), squeeze=False)
    for ax, path in zip(axes[0], paths):
        values = [r.get("values", {}).get(path) for r in rows]
        numeric = all(is_number(v) for v in values)
        categories = sorted({value_text(v) for v in values}) if not numeric else []
        xs = values if numeric else [categories.index(value_text(v)) for v in values]
        ys = [r[field] * scale for r in rows]
        ax.scatter(xs, ys, s=22, color="tab:blue", alpha=0.8, label="trials")
        chosen = [(x, y) for x, y, r in zip(xs, ys, rows) if r.get("id") == best]
        if chosen:
            ax.scatter(*zip(*chosen), s=140, marker="*", color="tab:red", label="best", zorder=3)
        if numeric:
            plot_style.number_axis(ax, "x", xs, log=True if path in logs else None)
        else:
            ax.set_xticks(range(len(categories)), categories)
        plot_style.linear_ticks(ax.yaxis)
        ax.set_xlabel(path)
        ax.set_ylabel(f"{metric}{' (%)' if scale == 100.0 else ''}")
        ax.grid(True, alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.suptitle(f"Random search: {metric} ({search.get('mode', 'max')}) against each searched value "
                 f"({summary['sweep']})", fontsize=10)
    fig.tight_layout()  # a panel's y label clear of the one before it
    return fig


def has_validation(groups):
    """Whether a point group has validation figures (older summaries and runs without a
    validation split have none)."""
    return any((g.get("stats", {}).get("val_accuracy") or {}).get("n", 0) > 0 for g in groups)


PLOTS = ("throughput", "speedup", "utilisation", "accuracy", "loss_epochs", "loss_steps",
         "accuracy_epochs", "search", "val_accuracy", "val_accuracy_epochs")
MEAN_STD = "mean ± std over each group's repeats"
BENCHMARKS = "the points were benchmarks, or the summary is older than curves"


def plots(summary, sweep_dir, groups, layout, trained):
    """(name, draw, why a plot may have no data) for each plot this sweep may have; `draw()`
    returns the figure, or None without data."""
    gpu_groups = [g for g in groups if is_gpu(g.get("device"))]
    for g in groups:  # each point's own device: NVML's GPU busy time, or the CPU threads' time
        g["stats"]["utilisation"] = g["stats"].get("gpu_utilisation" if is_gpu(g.get("device")) else "cpu_utilisation")
    out = [
        ("throughput", lambda: figure(
            summary, layout, "Training throughput", "images/s (mean of median steps)",
            series(layout, groups, throughput), throughput_axis,
            "markers: the runs' median step, mean over repeats; bars: the p90 and p10 step times"),
         "no completed point"),
        ("speedup", lambda: figure(
            summary, layout, "GPU speedup over the CPU", "speedup over the CPU (×)",
            series(layout, gpu_groups, mean_std("speedup_over_cpu")), speedup_axis,
            f"GPU images/s ÷ the matching CPU point's images/s, {MEAN_STD}; dashed: break-even"),
         "no GPU point with a matching CPU point"),
        ("utilisation", lambda: figure(
            summary, layout, "Device utilisation during training", "utilisation (%)",
            series(layout, groups, mean_std("utilisation", 100.0)), from_zero,
            f"GPU: NVML's busy time; CPU: the threads' busy time; {MEAN_STD}"),
         "no utilisation figures in the reports"),
        ("accuracy", lambda: figure(
            summary, layout, "Test accuracy", "test accuracy (%)",
            series(layout, groups, mean_std("test_accuracy", 100.0)), accuracy_range, MEAN_STD),
         "no test accuracy: the points were benchmarks"),
        ("loss_epochs", lambda: loss_epochs(summary, groups), "no loss per epoch: the points were benchmarks"),
        ("loss_steps", lambda: curve_figure(
            summary, trained, "train", "step", "loss", 1.0, "Training loss per step", "step", "training loss"),
         f"no curves: {BENCHMARKS}"),
        ("accuracy_epochs", lambda: curve_figure(
            summary, groups, "test", "epoch", "accuracy", 100.0, "Test accuracy per epoch", "epoch",
            "test accuracy (%)"),
         f"no curves: {BENCHMARKS}"),
    ]
    if isinstance(summary.get("search"), dict):
        out.append(("search", lambda: search_figure(summary, sweep_dir), "no completed point reported the metric"))
    if has_validation(groups):  # dataset.validation_split: the figures model selection used
        out += [
            ("val_accuracy", lambda: figure(
                summary, layout, "Validation accuracy", "validation accuracy (%)",
                series(layout, groups, mean_std("val_accuracy", 100.0)), accuracy_range, MEAN_STD),
             "no validation accuracy"),
            ("val_accuracy_epochs", lambda: curve_figure(
                summary, trained, "validation", "epoch", "accuracy", 100.0, "Validation accuracy per epoch",
                "epoch", "validation accuracy (%)"),
             "no validation curves"),
        ]
    return out


def main():
    # --brief: one line for all plots (the end of a sweep, whose terminal summary is short)
    # instead of a line per plot.
    brief = "--brief" in sys.argv[1:]
    arguments = [a for a in sys.argv[1:] if a != "--brief"]
    if len(arguments) != 1:
        sys.exit(__doc__)
    sweep_dir = arguments[0]
    summary, groups, axes, trained, planned = load(sweep_dir)
    layout = Layout(groups, axes, planned)
    folder = os.path.join(sweep_dir, "plots")
    drawn, left_out = [], []
    for name, draw_plot, why_not in plots(summary, sweep_dir, groups, layout, trained):
        fig = draw_plot()
        if fig is None:
            left_out.append(f"{name} ({why_not})")
            if not brief:
                print(f"plot left out: {name} ({why_not})")
            continue
        saved = plot_style.save(fig, folder, name)
        if not brief:
            print("plot:", " ".join(saved))
        drawn.append(name)
    plot_style.remove_stale(folder, [name for name in PLOTS if name not in drawn])
    if brief:
        line = (f"plots drawn (.png, .svg): {', '.join(drawn) or 'none'}"
                + (f"; left out: {'; '.join(left_out)}" if left_out else ""))
        print(textwrap.fill(line, width=100, subsequent_indent="  ", break_on_hyphens=False))


if __name__ == "__main__":
    main()
