#!/usr/bin/env python3
"""The plot scripts' rules, read from the SVG text they save (svg.fonttype none: every label is a
<text> element): zipped axes make no lines of their own, a group with epochs shorter than
log_every still appears, a constant learning rate gets no axis, tick labels do not overlap and a
value axis is logarithmic beyond a decade, labels stay inside the image, a plot without data is
not written and its stale file is removed, and SVG text stays text.

Run: /usr/bin/python3 tests/plots/plot_rules_test.py (ctest: PlotRules). Exits 77 (skipped)
without matplotlib. $PLOT_SCRIPTS names another scripts/ folder to test (an older checkout's, to
see these tests fail there); with $RUNNER_BINARY set, one test also draws a real sweep.
"""
import importlib.util
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

SKIPPED = 77  # ctest's SKIP_RETURN_CODE for this test
if importlib.util.find_spec("matplotlib") is None:
    print(f"skipped: {sys.executable} has no matplotlib (Debian: apt install python3-matplotlib)")
    sys.exit(SKIPPED)

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.environ.get("PLOT_SCRIPTS") or os.path.join(HERE, "..", "..", "scripts")
SVG = "{http://www.w3.org/2000/svg}"
FIGURES = ("images_per_second", "step_time_p10_seconds", "step_time_p90_seconds", "cpu_utilisation",
           "gpu_utilisation", "speedup_over_cpu", "test_accuracy", "test_loss", "val_accuracy", "val_loss",
           "final_loss")


# ---- synthetic sweep folders: just the fields the scripts read ----

def stats(value):
    n = 0 if value is None else 1
    return {"n": n, "mean": value, "std": None, "min": value, "max": value}


def train_curves(batch_size, epochs=2, train_images=1024, log_every=8, loss=2.3):
    """A run's curves as the runner records them: the loss every log_every steps (none when an
    epoch is shorter), the test figures after each epoch with the step that ended it."""
    per_epoch = math.ceil(train_images / batch_size)
    steps = per_epoch * epochs
    train = [{"step": s, "epoch": (s - 1) // per_epoch + 1, "loss": loss / (1 + s / 50), "lr": 0.001}
             for s in range(log_every, steps + 1, log_every)]
    test = [{"epoch": e, "step": e * per_epoch, "loss": loss / (1 + e), "accuracy": 0.5 + 0.1 * e}
            for e in range(1, epochs + 1)]
    epoch_losses = [{"epoch": e, "train_loss": loss / (1 + e / 2), "test_loss": loss / (1 + e)}
                    for e in range(1, epochs + 1)]
    return {"train": train, "test": test}, epoch_losses


def point(values, batch_size=16, images_per_second=1000.0, device="cpu", trained=True, **figures):
    """A point group of one completed run: its summary row and group."""
    pid = "__".join(f"{k.rsplit('.', 1)[-1]}={v}" for k, v in values.items())
    row = {"id": pid, "status": "completed", "values": values, "device": device, "batch_size": batch_size,
           "width": values.get("model.width", 1), "images_per_second": images_per_second,
           "step_time_p10_seconds": 0.9 * batch_size / images_per_second,
           "step_time_p90_seconds": 1.1 * batch_size / images_per_second, "cpu_utilisation": 0.9}
    row.update(figures)
    if trained:
        row["curves"], row["epoch_losses"] = train_curves(batch_size)
        row.setdefault("test_accuracy", 0.8)
    group = {"id": pid, "values": values, "device": device, "batch_size": batch_size, "width": row["width"],
             "runs": 1, "completed": 1, "points": [pid], "stats": {f: stats(row.get(f)) for f in FIGURES},
             "epochs": [{"epoch": e["epoch"], "train_loss": stats(e["train_loss"]),
                         "test_loss": stats(e["test_loss"])} for e in row.get("epoch_losses", [])]}
    return row, group


def write_sweep(folder, points, name="t"):
    os.makedirs(folder, exist_ok=True)
    axes = sorted({k for row, _ in points for k in row["values"]})
    summary = {"sweep": name, "schema_version": 2, "axes": axes, "points": [r for r, _ in points],
               "groups": [g for _, g in points]}
    with open(os.path.join(folder, "summary.json"), "w") as f:
        json.dump(summary, f)
    return folder


def zipped_sweep(folder):
    """model.width [0.5, 1, 2] x zip(batch_size [16, 64], lr [0.02, 0.05]), as the issue's."""
    return write_sweep(folder, [
        point({"model.width": w, "training.batch_size": b, "training.optimizer.lr": lr}, batch_size=b,
              images_per_second=1000.0 * b / w)
        for w in (0.5, 1, 2) for b, lr in ((16, 0.02), (64, 0.05))])


def run_report(folder, batch_size=16, lr=None, trained=True):
    """A run's report.json with the fields plot_run.py reads."""
    os.makedirs(folder, exist_ok=True)
    report = {"name": "tiny", "run_id": "r1", "mode": "train" if trained else "benchmark",
              "config": {"training": {"batch_size": batch_size, "log_every": 8}},
              "data": {"train_images": 1024}, "epochs": []}
    if trained:
        curves, epoch_losses = train_curves(batch_size)
        for p in curves["train"]:
            p["lr"] = lr(p["step"]) if lr else 0.001
        report["curves"] = curves
        report["epochs"] = [dict(e, learning_rate=0.001, test_accuracy=0.6) for e in epoch_losses]
    path = os.path.join(folder, "report.json")
    with open(path, "w") as f:
        json.dump(report, f)
    return path


# ---- reading the SVGs ----

# DejaVu Sans advance widths in em (matplotlib's default font), the rest at the widest letters'.
WIDTHS = dict(zip("abcdefghijklmnopqrstuvwxyz", (0.613, 0.635, 0.55, 0.635, 0.615, 0.352, 0.635, 0.634, 0.278,
                                                  0.278, 0.579, 0.278, 0.974, 0.634, 0.612, 0.635, 0.635, 0.411,
                                                  0.521, 0.392, 0.634, 0.592, 0.818, 0.592, 0.592, 0.525)))
WIDTHS.update({c: 0.636 for c in "0123456789"})
WIDTHS.update({" ": 0.318, ".": 0.318, ",": 0.318, ":": 0.337, ";": 0.337, "'": 0.275, "(": 0.39, ")": 0.39,
               "-": 0.361, "/": 0.337, "_": 0.5, "=": 0.838, "%": 0.95, "±": 0.838, "×": 0.838})


def char_width(c):
    return WIDTHS.get(c, 0.8)


class Text:
    """A <text> element: its string and an estimate of its box in SVG units."""

    def __init__(self, element):
        self.text = "".join(element.itertext())
        style = element.get("style", "")
        size = re.search(r"font: (?:[a-z]+ )*([\d.]+)px", style)
        self.size = float(size.group(1)) if size else 10.0
        anchor = re.search(r"text-anchor: (\w+)", style)
        self.anchor = anchor.group(1) if anchor else "start"
        transform = element.get("transform", "")
        if element.get("x") is not None:
            self.x, self.y = float(element.get("x")), float(element.get("y"))
        else:
            translate = re.search(r"translate\(([-\d.e]+)[ ,]+([-\d.e]+)\)", transform)
            self.x, self.y = float(translate.group(1)), float(translate.group(2))
        rotation = re.search(r"rotate\((-?[\d.]+)", transform)
        self.vertical = bool(rotation) and abs(float(rotation.group(1))) == 90
        self.width = self.size * sum(char_width(c) for c in self.text)

    def box(self):
        """(x0, y0, x1, y1)."""
        start = {"start": 0.0, "middle": -0.5, "end": -1.0}[self.anchor] * self.width
        if self.vertical:  # rotated -90: the text runs upwards from its anchor
            return (self.x - 0.8 * self.size, self.y - start - self.width, self.x + 0.25 * self.size, self.y - start)
        return (self.x + start, self.y - 0.8 * self.size, self.x + start + self.width, self.y + 0.25 * self.size)


def boxes_overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


class Svg:
    def __init__(self, path):
        self.path = path
        self.root = ET.parse(path).getroot()
        self.height = float(self.root.get("viewBox").split()[3])
        self.width = float(self.root.get("viewBox").split()[2])

    def groups(self, pattern, within=None):
        return [g for g in (within if within is not None else self.root).iter(f"{SVG}g")
                if re.fullmatch(pattern, g.get("id", ""))]

    def texts(self, within=None):
        return [Text(t) for t in (within if within is not None else self.root).iter(f"{SVG}text")]

    def strings(self):
        return [t.text for t in self.texts()]

    def axes(self):
        return self.groups(r"axes_\d+")

    def tick_labels(self, axes, which):
        """Each tick's label lines on the axes' x (or y) axis."""
        axis = self.groups(r"matplotlib\.axis_1" if which == "x" else r"matplotlib\.axis_2", axes)
        ticks = [self.texts(tick) for a in axis for tick in self.groups(rf"{which}tick_\d+", a)]
        return [lines for lines in ticks if lines]  # minor ticks and hidden labels have none

    def legend_texts(self):
        return [t.text for legend in self.groups(r"legend_\d+") for t in self.texts(legend)]


def tick_values(labels):
    """(position along the axis, number) of each tick whose label is one plain number."""
    out = []
    for lines in labels:
        if lines and re.fullmatch(r"-?[\d,]*\.?\d+", lines[0].text):
            out.append((lines[0].x if not lines[0].vertical else lines[0].y, lines[0].y,
                        float(lines[0].text.replace(",", ""))))
    return out


def is_log_axis(labels, which):
    """Whether the ticks' positions follow the logarithm of their values rather than the values."""
    ticks = sorted((p[0] if which == "x" else p[1], p[2]) for p in tick_values(labels))
    if len(ticks) < 3 or min(v for _, v in ticks) <= 0:
        return False
    (p0, v0), (p1, v1), (p2, v2) = ticks[0], ticks[len(ticks) // 2], ticks[-1]
    by_position = (p1 - p0) / (p2 - p0)
    return abs(by_position - math.log(v1 / v0) / math.log(v2 / v0)) < 0.02


# ---- running the scripts ----

def plot_sweep(folder):
    return run_script("plot_sweep.py", folder)


def run_script(script, argument, *options):
    result = subprocess.run([sys.executable, os.path.join(SCRIPTS, script), *options, argument],
                            capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        raise AssertionError(f"{script} failed:\n{result.stdout}\n{result.stderr}")
    return result.stdout


class PlotTestCase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="plot_rules_")
        self.addCleanup(shutil.rmtree, self.tmp)

    def folder(self, name):
        return os.path.join(self.tmp, name)

    def svg(self, folder, name):
        path = os.path.join(folder, "plots", f"{name}.svg")
        self.assertTrue(os.path.isfile(path), f"{path} was not drawn")
        return Svg(path)

    def assert_no_overlapping_ticks(self, svg):
        for axes in svg.axes():
            for which in ("x", "y"):
                boxes = [t.box() for lines in svg.tick_labels(axes, which) for t in lines]
                for i, a in enumerate(boxes):
                    for b in boxes[i + 1:]:
                        self.assertFalse(boxes_overlap(a, b), f"{svg.path}: {which} tick labels overlap: "
                                         f"{[t.text for lines in svg.tick_labels(axes, which) for t in lines]}")

    def assert_inside(self, svg):
        for t in svg.texts():
            x0, y0, x1, y1 = t.box()
            self.assertTrue(x0 >= -1 and y0 >= -1 and x1 <= svg.width + 1 and y1 <= svg.height + 1,
                            f"{svg.path}: {t.text!r} reaches outside the image "
                            f"({x0:.0f}, {y0:.0f}, {x1:.0f}, {y1:.0f} in {svg.width:.0f} x {svg.height:.0f})")


class ZippedAxes(PlotTestCase):
    def test_a_zip_partner_of_x_makes_no_lines_of_its_own(self):
        folder = zipped_sweep(self.folder("zip"))
        plot_sweep(folder)
        for name in ("throughput", "utilisation", "accuracy"):
            legend = self.svg(folder, name).legend_texts()
            self.assertEqual(sorted(legend), ["width=0.5", "width=1", "width=2"], name)
        # The partner's values are named along the line, under the x ticks.
        self.assertIn("lr 0.02", self.svg(folder, "throughput").strings())

    def test_an_axis_crossed_with_x_still_splits_lines(self):
        folder = write_sweep(self.folder("grid"), [
            point({"training.batch_size": b, "model.width": w}, batch_size=b) for b in (16, 64) for w in (1, 2)])
        plot_sweep(folder)
        self.assertEqual(sorted(self.svg(folder, "throughput").legend_texts()), ["width=1", "width=2"])


class ShortEpochs(PlotTestCase):
    def test_a_group_with_epochs_shorter_than_log_every_is_drawn_per_epoch(self):
        folder = write_sweep(self.folder("big"), [point({"training.batch_size": b}, batch_size=b)
                                                   for b in (16, 1024)])
        plot_sweep(folder)
        legend = self.svg(folder, "loss_steps").legend_texts()
        self.assertTrue(any(t.startswith("batch_size=1024") and "per epoch" in t for t in legend), legend)
        self.assertTrue(any(t == "batch_size=16" for t in legend), legend)

    def test_one_run_with_epochs_shorter_than_log_every_is_drawn_per_epoch(self):
        report = run_report(self.folder("run"), batch_size=1024)
        run_script("plot_run.py", report)
        legend = self.svg(self.folder("run"), "loss_steps").legend_texts()
        self.assertTrue(any("per epoch" in t for t in legend), legend)


class ConstantSeries(PlotTestCase):
    def test_a_constant_learning_rate_is_named_not_given_an_axis(self):
        run_script("plot_run.py", run_report(self.folder("run")))
        svg = self.svg(self.folder("run"), "loss_steps")
        self.assertEqual(len(svg.axes()), 1, "a second axis for a constant learning rate")
        self.assertIn("lr 0.001 (constant)", svg.legend_texts())

    def test_a_changing_learning_rate_gets_its_axis(self):
        run_script("plot_run.py", run_report(self.folder("run"), lr=lambda step: 0.1 / step))
        svg = self.svg(self.folder("run"), "loss_steps")
        self.assertEqual(len(svg.axes()), 2)
        self.assert_no_overlapping_ticks(svg)


class Ticks(PlotTestCase):
    def test_close_swept_values_do_not_overlap(self):
        lrs = (0.001, 0.005888, 0.01085, 0.0125, 0.02, 0.1)
        folder = write_sweep(self.folder("lr"), [point({"training.optimizer.lr": lr}) for lr in lrs])
        plot_sweep(folder)
        for name in ("throughput", "accuracy"):
            self.assert_no_overlapping_ticks(self.svg(folder, name))

    def test_value_ranges_give_few_short_labels_that_do_not_overlap(self):
        for low, high in ((58880.0, 61085.0), (5.0, 5e6), (0.005888, 0.01085), (1e-4, 3e-4), (100, 100)):
            folder = write_sweep(self.folder(f"range{low}-{high}"), [
                point({"training.batch_size": b}, batch_size=b, images_per_second=low + (high - low) * i / 3)
                for i, b in enumerate((8, 16, 32, 64))])
            plot_sweep(folder)
            svg = self.svg(folder, "throughput")
            self.assert_no_overlapping_ticks(svg)
            labels = [lines[0].text for lines in svg.tick_labels(svg.axes()[0], "y")]
            self.assertLessEqual(len(labels), 9, labels)
            self.assertTrue(all(len(t) <= 9 and re.fullmatch(r"[\d,.]+", t) for t in labels), labels)
            self.assertEqual(len(set(labels)), len(labels), labels)

    def test_a_value_axis_is_logarithmic_beyond_a_decade_only(self):
        folder = write_sweep(self.folder("huge"), [
            point({"training.batch_size": b}, batch_size=b, images_per_second=v)
            for b, v in ((4, 50.0), (64, 5e3), (1024, 5e6))])
        plot_sweep(folder)
        svg = self.svg(folder, "throughput")
        self.assertTrue(is_log_axis(svg.tick_labels(svg.axes()[0], "y"), "y"))
        narrow = write_sweep(self.folder("narrow"), [
            point({"training.batch_size": b}, batch_size=b, images_per_second=v)
            for b, v in ((4, 50000.0), (64, 70000.0), (1024, 150000.0))])
        plot_sweep(narrow)
        svg = self.svg(narrow, "throughput")
        self.assertFalse(is_log_axis(svg.tick_labels(svg.axes()[0], "y"), "y"), "a log axis within a decade")

    def test_a_speedup_over_a_decade_is_logarithmic_in_plain_numbers(self):
        folder = write_sweep(self.folder("gpu"), [
            point({"training.batch_size": b, "device": d}, batch_size=b, device=d,
                  speedup_over_cpu=(s if d == "cuda" else None))
            for b, s in ((4, 0.5), (64, 4.0), (1024, 40.0)) for d in ("cpu", "cuda")])
        plot_sweep(folder)
        svg = self.svg(folder, "speedup")
        labels = svg.tick_labels(svg.axes()[0], "y")
        self.assertTrue(is_log_axis(labels, "y"), [lines[0].text for lines in labels])
        self.assertTrue(all(re.fullmatch(r"[\d,.]+", lines[0].text) for lines in labels))


class Labels(PlotTestCase):
    def test_every_label_is_inside_the_image(self):
        folder = zipped_sweep(self.folder("zip"))
        plot_sweep(folder)
        for name in ("throughput", "utilisation", "accuracy", "loss_steps", "accuracy_epochs", "loss_epochs"):
            self.assert_inside(self.svg(folder, name))
        run_script("plot_run.py", run_report(self.folder("run"), lr=lambda step: 0.1 / step))
        self.assert_inside(self.svg(self.folder("run"), "loss_steps"))


class NoData(PlotTestCase):
    def test_a_cpu_sweep_has_no_speedup_plot(self):
        folder = zipped_sweep(self.folder("zip"))
        out = plot_sweep(folder)
        self.assertFalse(os.path.exists(os.path.join(folder, "plots", "speedup.png")))
        self.assertFalse(os.path.exists(os.path.join(folder, "plots", "speedup.svg")))
        self.assertIn("plot left out: speedup", out)
        self.assertIn(f"plot: {os.path.join(folder, 'plots', 'throughput.png')} "
                      f"{os.path.join(folder, 'plots', 'throughput.svg')}", out)

    def test_brief_output_names_the_drawn_and_the_left_out_in_100_columns(self):
        folder = zipped_sweep(self.folder("zip"))
        out = run_script("plot_sweep.py", folder, "--brief")
        self.assertLessEqual(max(len(line) for line in out.splitlines()), 100, out)
        self.assertTrue(out.startswith("plots drawn (.png, .svg): throughput, "), out)
        self.assertIn("; left out: speedup (", " ".join(out.split()))
        self.assertNotIn("plot:", out)
        self.assertTrue(os.path.exists(os.path.join(folder, "plots", "throughput.svg")))

    def test_a_benchmark_sweep_has_no_curve_or_accuracy_plots(self):
        folder = write_sweep(self.folder("bench"), [point({"training.batch_size": b}, batch_size=b, trained=False)
                                                     for b in (4, 8)])
        plot_sweep(folder)
        drawn = sorted(os.listdir(os.path.join(folder, "plots")))
        self.assertEqual(drawn, ["throughput.png", "throughput.svg", "utilisation.png", "utilisation.svg"])

    def test_a_plot_without_data_on_a_rerun_is_removed_and_other_files_kept(self):
        folder = zipped_sweep(self.folder("zip"))
        plot_sweep(folder)
        self.assertTrue(os.path.exists(os.path.join(folder, "plots", "loss_steps.svg")))
        with open(os.path.join(folder, "plots", "notes.png"), "w") as f:
            f.write("not the script's")
        with open(os.path.join(folder, "summary.json")) as f:
            summary = json.load(f)
        for row in summary["points"]:  # the same folder, reported as benchmarks now
            row.pop("curves")
        with open(os.path.join(folder, "summary.json"), "w") as f:
            json.dump(summary, f)
        plot_sweep(folder)
        self.assertFalse(os.path.exists(os.path.join(folder, "plots", "loss_steps.svg")))
        self.assertFalse(os.path.exists(os.path.join(folder, "plots", "loss_steps.png")))
        self.assertTrue(os.path.exists(os.path.join(folder, "plots", "notes.png")))

    def test_a_benchmark_run_has_no_plots_and_loses_stale_ones(self):
        run_script("plot_run.py", run_report(self.folder("run")))
        self.assertTrue(os.path.exists(os.path.join(self.folder("run"), "plots", "loss_steps.svg")))
        out = run_script("plot_run.py", run_report(self.folder("run"), trained=False))
        self.assertEqual(os.listdir(os.path.join(self.folder("run"), "plots")), [], out)


class SvgText(PlotTestCase):
    def test_svg_text_is_text_not_glyph_paths(self):
        folder = zipped_sweep(self.folder("zip"))
        plot_sweep(folder)
        svg = self.svg(folder, "throughput")
        self.assertIn("width=0.5", svg.strings())
        with open(svg.path) as f:
            self.assertNotIn('<path id="DejaVuSans-', f.read())
        self.assertLess(os.path.getsize(svg.path), 30000)


@unittest.skipUnless(os.environ.get("RUNNER_BINARY"), "$RUNNER_BINARY not set: no real sweep")
class RealSweep(PlotTestCase):
    def test_the_issue_sweep_draws_three_lines_and_no_speedup(self):
        config = os.path.join(HERE, "..", "..", "configs", "tiny_synthetic.yaml")
        sweep = os.path.join(self.tmp, "sw.yaml")
        with open(sweep, "w") as f:
            f.write(f"name: sw\nbase: {os.path.abspath(config)}\nmode: train\n"
                    "set: [training.epochs=1, checkpoint.path=]\nsweep:\n  grid:\n    model.width: [0.5, 1, 2]\n"
                    "  zip:\n    training.batch_size: [16, 1024]\n    training.optimizer.lr: [0.02, 0.05]\n")
        result = subprocess.run([os.environ["RUNNER_BINARY"], "sweep", sweep, "--output", self.tmp, "--quiet"],
                                capture_output=True, text=True, timeout=600)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        folder = os.path.join(self.tmp, "sw")
        plot_sweep(folder)  # this checkout's script (the runner's may be another's)
        self.assertEqual(sorted(self.svg(folder, "throughput").legend_texts()), ["width=0.5", "width=1", "width=2"])
        legend = self.svg(folder, "loss_steps").legend_texts()
        self.assertEqual(sum("per epoch" in t for t in legend), 3, legend)
        self.assertFalse(os.path.exists(os.path.join(folder, "plots", "speedup.svg")))


if __name__ == "__main__":
    unittest.main()
