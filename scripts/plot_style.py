"""What scripts/plot_sweep.py and scripts/plot_run.py draw alike: axis scales, ticks and their
labels, captions, constant series, and the plot files (written whole, stale ones removed).

Rules: a log axis only where the positive values span more than a decade, with plain labels
(`0.002`, `20,000`, never `10^-2.1`); a handful of ticks labelled with 3 significant digits (more
only where neighbouring ticks would read alike), thousands separated; no two tick labels overlap;
a series that never changes gets no axis of its own but a phrase (`lr 0.001 (constant)`); SVG
text stays text (small files whose labels can be searched).
"""
import math
import os
import sys

# A Python without matplotlib: one line and exit 77, which the runner reads as "plots skipped"
# (it starts Python once per plot script, not once more to ask whether matplotlib is there).
NO_MATPLOTLIB = 77
try:
    import matplotlib
except ImportError:
    print(f"plots skipped: {sys.executable} has no matplotlib (Debian: apt install python3-matplotlib)",
          file=sys.stderr)
    sys.exit(NO_MATPLOTLIB)

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402

# Text as <text> elements instead of glyph paths: a fraction of the size, and searchable.
matplotlib.rcParams["svg.fonttype"] = "none"
# The font the plots are drawn in anyway, named alone: every text of an SVG repeats the family
# list (a tenth of a sweep page's bytes with matplotlib's ten fallbacks).
matplotlib.rcParams["font.sans-serif"] = ["DejaVu Sans"]

MAX_TICKS = 6
EXTENSIONS = ("png", "svg")
DPI = 120  # of the PNG files


def number_text(value, digits=3):
    """`value` to `digits` significant digits, thousands separated: 0.00589, 12.5, 22,600."""
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else str(value)
    rounded = float(f"{value:.{digits}g}")
    if abs(rounded) >= 1000:
        decimals = max(0, digits - 1 - int(math.floor(math.log10(abs(rounded)))))
        return f"{rounded:,.{decimals}f}"
    return f"{rounded:.{digits}g}"


def value_text(value):
    """A swept value as a tick or legend label: integers whole (1024), others to 3 digits."""
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer() and abs(value) < 1e6):
        return str(int(value))
    return number_text(value)


class ShortNumbers(ticker.Formatter):
    """Tick labels of 3 significant digits; more only when two ticks would otherwise read the same
    (a narrow range such as 22,630 and 22,640)."""

    def __init__(self):
        self.digits = 3

    def set_locs(self, locs):
        super().set_locs(locs)
        self.digits = 3
        while self.digits < 12 and len({number_text(v, self.digits) for v in locs}) < len(set(locs)):
            self.digits += 1

    def __call__(self, value, pos=None):
        return number_text(value, self.digits)


def spans_decades(values):
    """Whether the values are all positive and the largest is more than 10 times the smallest."""
    values = [v for v in values if v is not None]
    return bool(values) and min(values) > 0 and max(values) > 10 * min(values)


def log_ticks(axis, values):
    """Decades (and 2 and 5 times them over two decades or less, every digit under one) as
    plain numbers; minor ticks unlabelled."""
    decades = math.log10(max(values) / min(values))
    subs = tuple(range(1, 10)) if decades < 1 else (1.0, 2.0, 5.0) if decades <= 2 else (1.0,)
    axis.set_major_locator(ticker.LogLocator(base=10, subs=subs, numticks=MAX_TICKS + 1))
    axis.set_minor_locator(ticker.LogLocator(base=10, subs=tuple(range(2, 10)), numticks=12))
    axis.set_major_formatter(ShortNumbers())
    axis.set_minor_formatter(ticker.NullFormatter())


def linear_ticks(axis, integer=False):
    axis.set_major_locator(ticker.MaxNLocator(nbins=MAX_TICKS, integer=integer))
    axis.set_major_formatter(ShortNumbers())


def set_scale(ax, which, scale, **options):
    (ax.set_xscale if which == "x" else ax.set_yscale)(scale, **options)


def number_axis(ax, which, values, integer=False, log=None):
    """A log axis when the positive values span more than a decade (or `log` says so and they
    are positive), else a linear one; a few ticks with short labels either way. Returns whether
    it is logarithmic."""
    axis = ax.xaxis if which == "x" else ax.yaxis
    values = [v for v in values if v is not None and math.isfinite(v)]
    if spans_decades(values) or (log and values and min(values) > 0):
        set_scale(ax, which, "log")
        log_ticks(axis, values)
        return True
    linear_ticks(axis, integer)
    return False


def ticks_at_values(ax, which, values, label=value_text):
    """Ticks at the swept values themselves (a log2 axis when they span a factor of 4 or more),
    labelled by `label(value)`; `hide_overlapping_labels` thins them if they crowd."""
    axis = ax.xaxis if which == "x" else ax.yaxis
    values = sorted(set(values))
    if values and min(values) > 0 and max(values) >= 4 * min(values):
        set_scale(ax, which, "log", base=2)
    if len(values) > 3 * MAX_TICKS:  # too many to label: a locator instead
        number_axis(ax, which, values)
        return
    axis.set_major_locator(ticker.FixedLocator(values))
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: label(v)))
    axis.set_minor_locator(ticker.NullLocator())


def tick_labels(axis):
    """The axis's drawn tick labels (inside its view), in the order of their ticks."""
    low, high = sorted(axis.get_view_interval())
    span = high - low
    ticks = sorted(axis.get_major_ticks(), key=lambda t: t.get_loc())
    return [label for t in ticks if low - 1e-9 * span <= t.get_loc() <= high + 1e-9 * span
            for label in (t.label1, t.label2) if label.get_visible() and label.get_text()]


def hide_overlapping_labels(fig, padding=4):
    """Hides each tick label that would touch one already kept on its axis: the last guard
    against colliding labels (the locators keep them few already)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            kept = []
            for label in tick_labels(axis):
                box = label.get_window_extent(renderer).padded(padding)
                if any(box.overlaps(other) for other in kept):
                    label.set_visible(False)
                else:
                    kept.append(box)


def constant_value(values, tolerance=1e-9):
    """The series' value when it never changes (within a relative tolerance), else None."""
    values = [v for v in values if v is not None]
    if not values:
        return None
    low, high = min(values), max(values)
    return low if high - low <= tolerance * max(abs(high), abs(low), 1e-300) else None


def caption(ax, text):
    """A small grey note under the axes' x label (what markers, bars or shading mean), so the
    y label stays short enough to fit; bbox_inches="tight" keeps it in the saved image."""
    ax.annotate(text, xy=(0.5, 0), xycoords=ax.xaxis.label, xytext=(0, -6), textcoords="offset points",
                ha="center", va="top", fontsize=8, color="0.35")


def plot_paths(folder, name):
    return [os.path.join(folder, f"{name}.{ext}") for ext in EXTENSIONS]


def save(fig, folder, name):
    """Writes the figure as PNG and SVG (each whole: a reader never sees half a file); returns
    their paths."""
    fig.set_dpi(DPI)  # measured at the resolution of the PNG
    hide_overlapping_labels(fig)
    # The tight box measured once for both files (bbox_inches="tight" draws the whole figure an
    # extra time per file to measure it: a third of a sweep's plotting time).
    box = fig.get_tightbbox(fig.canvas.get_renderer()).padded(matplotlib.rcParams["savefig.pad_inches"])
    os.makedirs(folder, exist_ok=True)
    paths = plot_paths(folder, name)
    for path, ext in zip(paths, EXTENSIONS):
        tmp = f"{path}.tmp.{ext}"
        fig.savefig(tmp, dpi=DPI, bbox_inches=box)
        os.replace(tmp, path)
    plt.close(fig)
    return paths


def remove_stale(folder, names):
    """Removes the plot files of `names` (this script's plots not drawn this time) that an
    earlier run left, so the folder never shows an outdated figure. Returns the removed paths."""
    removed = []
    for name in names:
        for path in plot_paths(folder, name):
            if os.path.isfile(path):
                os.remove(path)
                removed.append(path)
    return removed
