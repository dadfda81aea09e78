#!/usr/bin/env python3
"""Loss and accuracy curves of one run's report.json (called by `runner report RUN`).

Usage: plot_run.py REPORT_JSON
  -> <the report's folder>/plots/{loss_steps,accuracy_epochs}.{png,svg}

loss_steps: the running training loss at each log point (training.log_every) against the step,
the learning rate on a second axis, and the test loss after each epoch as markers.
accuracy_epochs: the test accuracy after each epoch (and the validation accuracy, with
dataset.validation_split). Reports written before `curves` existed are
drawn from their per-epoch figures. A run without such figures (a benchmark) still gets both
files, saying why they are empty.
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def curves(report):
    """(train points, test points) as lists of dicts, from `curves` or else `epochs`."""
    if isinstance(report.get("curves"), dict):
        return report["curves"].get("train", []), report["curves"].get("test", [])
    test = [{"epoch": e["epoch"], "loss": e["test_loss"], "accuracy": e["test_accuracy"]}
            for e in report.get("epochs", [])]
    return [], test


def title(report, what):
    name = report.get("name") or "run"
    run_id = report.get("run_id")
    return f"{name} {run_id}: {what}" if run_id else f"{name}: {what}"


def empty_note(ax, text):
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="gray")
    ax.set_xticks([])
    ax.set_yticks([])


def line_with_band(ax, xs, ys, spread=None, **style):
    """A line, with y ± spread shaded when a spread is given (the std over a sweep's repeats)."""
    (line,) = ax.plot(xs, ys, **style)
    if spread is not None and any(s > 0 for s in spread):
        ax.fill_between(xs, [y - s for y, s in zip(ys, spread)], [y + s for y, s in zip(ys, spread)],
                        alpha=0.2, color=line.get_color(), linewidth=0)
    return line


def save(fig, folder, name):
    os.makedirs(folder, exist_ok=True)
    for ext in ("png", "svg"):
        path = os.path.join(folder, f"{name}.{ext}")
        tmp = path + ".tmp." + ext
        fig.savefig(tmp, dpi=120, bbox_inches="tight")
        os.replace(tmp, path)  # a reader never sees half a file
    plt.close(fig)
    print(f"plot: {os.path.join(folder, name)}.png")


def loss_steps(report, train, test, folder):
    fig, ax = plt.subplots(figsize=(7, 4.5))
    if train:
        line_with_band(ax, [p["step"] for p in train], [p["loss"] for p in train], label="training loss")
        with_steps = [p for p in test if "step" in p]
        if with_steps:
            ax.plot([p["step"] for p in with_steps], [p["loss"] for p in with_steps], "o",
                    label="test loss (after each epoch)")
        ax.set_xlabel("step")
        ax.set_ylabel("loss")
        lr = ax.twinx()
        lr.plot([p["step"] for p in train], [p["lr"] for p in train], color="gray",
                linestyle=":", label="learning rate")
        lr.set_ylabel("learning rate")
        lines = ax.get_legend_handles_labels()
        more = lr.get_legend_handles_labels()
        ax.legend(lines[0] + more[0], lines[1] + more[1], loc="upper right")
    else:
        empty_note(ax, "no training loss per step in this report\n"
                       "(a benchmark, or written before curves were recorded)")
    ax.set_title(title(report, "loss per step"))
    save(fig, folder, "loss_steps")


def accuracy_epochs(report, test, folder):
    fig, ax = plt.subplots(figsize=(7, 4.5))
    validation = (report.get("curves") or {}).get("validation") or []
    if test or validation:
        for points, label in ((test, "test"), (validation, "validation")):
            if points:
                line_with_band(ax, [p["epoch"] for p in points], [100 * p["accuracy"] for p in points],
                               marker="o", label=label)
        epochs = [p["epoch"] for p in (test or validation)]
        ax.set_xlabel("epoch")
        ax.set_ylabel("accuracy (%)" if validation else "test accuracy (%)")
        ax.set_xticks(epochs if len(epochs) <= 20 else ax.get_xticks())
        if validation:
            ax.legend()
    else:
        empty_note(ax, "no evaluated epoch in this report (a benchmark, or stopped early)")
    ax.set_title(title(report, "test and validation accuracy per epoch" if validation
                       else "test accuracy per epoch"))
    save(fig, folder, "accuracy_epochs")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    path = sys.argv[1]
    with open(path) as f:
        report = json.load(f)
    train, test = curves(report)
    folder = os.path.join(os.path.dirname(os.path.abspath(path)), "plots")
    loss_steps(report, train, test, folder)
    accuracy_epochs(report, test, folder)


if __name__ == "__main__":
    main()
