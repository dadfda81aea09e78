#!/usr/bin/env python3
"""Loss and accuracy curves of one run's report.json (called by `runner report RUN`).

Usage: plot_run.py REPORT_JSON
  -> <the report's folder>/plots/{loss_steps,accuracy_epochs}.{png,svg}

loss_steps: the running training loss at each log point (training.log_every) against the step,
the learning rate on a second axis (or, when it never changes, named in the legend: `lr 0.02
(constant)`), and the test loss after each epoch as markers. A run whose epochs are shorter than
log_every (fewer log points than epochs) gets each epoch's training loss at the step that ended
it instead, as markers, and the legend says so.
accuracy_epochs: the test accuracy after each epoch (and the validation accuracy, with
dataset.validation_split). Reports written before `curves` existed are drawn from their per-epoch
figures. A plot without data (a benchmark has neither) is not written, and its file from an
earlier run of this script is removed; the script says which it left out.
"""
import json
import math
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ left in the source tree by the imports below
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_style  # noqa: E402  (sets the Agg backend and SVG text before pyplot is used)
import matplotlib.pyplot as plt  # noqa: E402

PER_EPOCH = "training loss per epoch (epochs shorter than log_every)"


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def report_curves(report):
    """The report's `curves` ({train, test, validation}), or for an older report its test
    figures per epoch."""
    if isinstance(report.get("curves"), dict):
        return report["curves"]
    test = [{"epoch": e["epoch"], "loss": e.get("test_loss"), "accuracy": e.get("test_accuracy")}
            for e in report.get("epochs", [])]
    return {"train": [], "test": test}


def steps_per_epoch(batch_size, train_images):
    if is_number(batch_size) and is_number(train_images) and batch_size > 0 and train_images > 0:
        return math.ceil(train_images / batch_size)
    return None


def per_epoch_train_loss(curves, epochs, batch_size=None, train_images=None):
    """Each epoch's training loss (and learning rate) at the step that ended it: the step of the
    evaluation after the epoch (test and validation entries carry it), else epoch × steps per
    epoch. `train_images` may be a function, called only when an evaluation lacks its step."""
    ended = {p["epoch"]: p["step"] for part in ("test", "validation") for p in curves.get(part) or []
             if is_number(p.get("epoch")) and is_number(p.get("step"))}
    if any(e.get("epoch") not in ended for e in epochs):
        per_epoch = steps_per_epoch(batch_size, train_images() if callable(train_images) else train_images)
        ended.update({e["epoch"]: e["epoch"] * per_epoch for e in epochs
                      if per_epoch and is_number(e.get("epoch")) and e["epoch"] not in ended})
    return [{"epoch": e["epoch"], "step": ended[e["epoch"]], "loss": e["train_loss"], "lr": e.get("learning_rate")}
            for e in epochs if e.get("epoch") in ended and is_number(e.get("train_loss"))]


def training_loss_points(curves, epochs, batch_size=None, train_images=None):
    """(points, per_epoch): the training loss at each log point; or, when a run has fewer log
    points than epochs (its epochs are shorter than training.log_every), each epoch's training
    loss at the step that ended it, so the run is not left out."""
    train = curves.get("train") or []
    if train and len(train) >= len(epochs):
        return train, False
    ends = per_epoch_train_loss(curves, epochs, batch_size, train_images)
    return (ends, True) if len(ends) > len(train) else (train, False)


def title(report, what):
    name = report.get("name") or "run"
    run_id = report.get("run_id")
    return f"{name} {run_id}: {what}" if run_id else f"{name}: {what}"


def line_with_band(ax, xs, ys, spread=None, **style):
    """A line, with y ± spread shaded when a spread is given (the std over a sweep's repeats)."""
    (line,) = ax.plot(xs, ys, **style)
    if spread is not None and any(s > 0 for s in spread):
        ax.fill_between(xs, [y - s for y, s in zip(ys, spread)], [y + s for y, s in zip(ys, spread)],
                        alpha=0.2, color=line.get_color(), linewidth=0)
    return line


def learning_rate(ax, points):
    """The learning rate on a second axis; when it never changes, no axis (one would span a
    rounding error) but the text for the legend's title ("lr 0.02 (constant)")."""
    lrs = [p.get("lr") for p in points if is_number(p.get("lr"))]
    if not lrs:
        return None, None
    constant = plot_style.constant_value(lrs)
    if constant is not None:
        return None, f"lr {plot_style.number_text(constant)} (constant)"
    lr = ax.twinx()
    lr.plot([p["step"] for p in points if is_number(p.get("lr"))], lrs, color="gray", linestyle=":",
            label="learning rate")
    lr.set_ylabel("learning rate")
    plot_style.linear_ticks(lr.yaxis)  # linear: a schedule's shape, warm-up from 0 included
    return lr, None


def loss_steps(report, curves):
    """The training loss against the step, or None when the report has none."""
    training = report.get("config", {}).get("training", {})
    train, per_epoch = training_loss_points(curves, report.get("epochs", []), training.get("batch_size"),
                                            report.get("data", {}).get("train_images"))
    if not train:
        return None
    fig, ax = plt.subplots(figsize=(7, 4.5))
    steps, losses = [p["step"] for p in train], [p["loss"] for p in train]
    if per_epoch:
        ax.plot(steps, losses, "o-", markersize=6, label=PER_EPOCH)
    else:
        line_with_band(ax, steps, losses, label="training loss")
    with_steps = [p for p in curves.get("test") or [] if is_number(p.get("step")) and is_number(p.get("loss"))]
    if with_steps:
        ax.plot([p["step"] for p in with_steps], [p["loss"] for p in with_steps], "o",
                label="test loss (after each epoch)")
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    plot_style.linear_ticks(ax.xaxis, integer=True)
    plot_style.linear_ticks(ax.yaxis)
    lr, constant = learning_rate(ax, train)
    handles, labels = ax.get_legend_handles_labels()
    if lr is not None:
        more = lr.get_legend_handles_labels()
        handles, labels = handles + more[0], labels + more[1]
    ax.legend(handles, labels, loc="best", title=constant, fontsize=9, title_fontsize=9)
    ax.set_title(title(report, "loss per step"))
    return fig


def accuracy_epochs(report, curves):
    """The test (and validation) accuracy per epoch, or None when no epoch was evaluated."""
    test = [p for p in curves.get("test") or [] if is_number(p.get("accuracy"))]
    validation = [p for p in curves.get("validation") or [] if is_number(p.get("accuracy"))]
    if not (test or validation):
        return None
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for points, label in ((test, "test"), (validation, "validation")):
        if points:
            line_with_band(ax, [p["epoch"] for p in points], [100 * p["accuracy"] for p in points],
                           marker="o", label=label)
    ax.set_xlabel("epoch")
    ax.set_ylabel("accuracy (%)" if validation else "test accuracy (%)")
    plot_style.linear_ticks(ax.xaxis, integer=True)
    plot_style.linear_ticks(ax.yaxis)
    if validation:
        ax.legend()
    ax.set_title(title(report, "test and validation accuracy per epoch" if validation
                       else "test accuracy per epoch"))
    return fig


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    path = sys.argv[1]
    with open(path) as f:
        report = json.load(f)
    curves = report_curves(report)
    folder = os.path.join(os.path.dirname(os.path.abspath(path)), "plots")
    left_out = []
    for name, draw in (("loss_steps", loss_steps), ("accuracy_epochs", accuracy_epochs)):
        fig = draw(report, curves)
        if fig is None:
            left_out.append(name)
            continue
        plot_style.save(fig, folder, name)
        print(f"plot: {os.path.join(folder, name)}.png")
    plot_style.remove_stale(folder, left_out)
    if left_out:
        print(f"not drawn, no data in the report (a benchmark, a run stopped before an epoch ended, "
              f"or a report older than curves): {', '.join(left_out)}")


if __name__ == "__main__":
    main()
