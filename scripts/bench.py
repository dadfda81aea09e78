#!/usr/bin/env python3
"""The benchmark suite: runner against PyTorch at its best on the same machine, the same threads
and the same in-memory workloads. Writes results/bench/<date>-<host>-<device>.json and a Markdown
table next to it. Two workloads:
  lenet    the tutorial's LeNet and eager loop (scripts/pytorch_lenet.py), at each batch size
           and width given (by default batch 4, 32 and 128, width 1 and 4);
  resnet8  configs/resnet8_cifar.yaml's network and recipe on CIFAR-10-shaped images (batch
           norm, Nesterov SGD with warm-up and cosine, label smoothing, random crop and flip on
           both sides; scripts/pytorch_peer.py bench), at batch 32 and 128, width 1.

Each point runs every configuration (a column) --repeats times, alternating runner and PyTorch
columns so that drift on a shared machine hits both, repeat r with seed r on both sides (the
data are fixed; the weights, the order and the augmentation change). The seeds are for the mean
loss, the check that both sides train alike: resnet8's timed steps at batch 128 straddle the
end of its one-epoch warm-up, where the loss falls from 2.2 to 0.7 in 30 steps and one seed's
run can spike at the peak rate, so one seed's mean says little and the median of five does.
The columns:
  runner   training.precision fp32 and bf16 (on a GPU also tf32); on the CPU the resnet8 rows
           add fp32 with backend.own_kernels=false (oneDNN for every layer: what its own kernels add);
  PyTorch  fp32 and bf16 autocast (on a GPU also tf32: PyTorch's default math), each with NCHW
           and channels_last (peer_settings.py).
The busy-machine column starts each side's fastest column twice at once, each process with its
side's default threads (the runner's fitted to what the other leaves; PyTorch's all cores), and
puts their combined images/s against that column's median alone: two experiments side by side on
one machine, as users start them. A column reports min/median/max images/s over its runs. The headline ratio is the runner's best
column against PyTorch's best (medians); the per-precision ratios put each runner precision
against PyTorch's best column of that precision. A column that fails (a precision the build or
the device refuses) records its error and is not run again.

  /usr/bin/python3 scripts/bench.py [--device cpu|cuda] [--batch-sizes 4 32 128] [--widths 1 4]
                                    [--workloads lenet resnet8] [--repeats 5] [--images 3000]
                                    [--precisions fp32 ...]

`make bench` (the defaults: 6 lenet and 2 resnet8 points, 6 or 7 columns, 5 runs of each, about
250 processes) took 9 min 27 s on 2 idle cores on 2026-11-26 (results/bench/2026-11-26-vm-cpu.md),
the peers' start-up (importing torch, rebuilding the data) a large part of it. Batch 512
(--batch-sizes 4 32 128 512) adds a few minutes. The JSON records the suite's wall time
(wall_seconds) and the Markdown header shows it.

On a GPU (`make bench-gpu`, or with a bundle made by scripts/gpu_check.sh prepare:
`scripts/bench.sh --runner gpu-bundle/runner --device cuda ...`) both peers hold the data in device memory
and run ahead of the GPU; their step times include an equal share of the wait every 50 steps.
The resnet8 PyTorch peer runs on the CPU only: its GPU columns record that as their error.
"""
import argparse
import concurrent.futures
import datetime
import itertools
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The precisions each side is timed at, per device type (TF32 exists only on the GPU).
PRECISIONS = {"cpu": ["fp32", "bf16"], "cuda": ["fp32", "tf32", "bf16"]}
MEMORY_FORMATS = ["nchw", "channels_last"]
# The peers' --math for each PyTorch precision: fp32 is strict FP32 (TF32 off, as the runner's
# fp32 computes); tf32 and bf16 are PyTorch's defaults, as a user who wants speed runs it.
PYTORCH_MATH = {"fp32": "strict", "tf32": "default", "bf16": "default"}


# ---- columns ----------------------------------------------------------------------------------

def device_type(device):
    return "cpu" if device == "cpu" else "cuda"


def columns(device, workload):
    """The configurations of one point, runner and PyTorch alternating. Each is a dict: name,
    side, precision, and memory_format (PyTorch) or own_kernels (runner)."""
    precisions = PRECISIONS[device_type(device)]
    runner = [{"name": f"runner {p}", "side": "runner", "precision": p, "own_kernels": True}
              for p in precisions]
    if workload == "resnet8" and device == "cpu":  # its own 16-channel Winograd kernels
        runner.append({"name": "runner fp32, oneDNN only", "side": "runner", "precision": "fp32",
                       "own_kernels": False, "diagnostic": True})
    pytorch = [{"name": f"PyTorch {p} {f}", "side": "pytorch", "precision": p, "memory_format": f}
               for p in precisions for f in MEMORY_FORMATS]
    mixed = itertools.chain.from_iterable(itertools.zip_longest(runner, pytorch))
    return [c for c in mixed if c is not None]


# ---- one run ----------------------------------------------------------------------------------

def last_lines(out, count=1):
    return (out.stdout + out.stderr).strip().splitlines()[-count:]


def run_runner(args, workload, point, column, seed):
    command = [str(args.runner), "bench", str(workload["config"]), "--quiet", "--output",
               str(args.scratch), "--steps", str(point["steps"]),
               "--warmup-steps", str(point["warmup_steps"]), "--profile-steps", "0",
               "--set", f"training.batch_size={point['batch_size']}",
               "--set", f"model.width={point['width']}", "--set", f"device={args.device}",
               "--set", f"seed={seed}", "--set", f"training.precision={column['precision']}"]
    if not column.get("default_threads"):
        command += ["--set", f"training.threads={args.threads}"]
    if not column["own_kernels"]:
        command += ["--set", "backend.own_kernels=false"]
    out = subprocess.run(command, capture_output=True, text=True)
    if out.returncode != 0:
        return {"error": last_lines(out, 3)}
    report = json.loads(Path(out.stdout.strip().splitlines()[-1].removeprefix("report: ")).read_text())
    step = report["step_time"]
    return {"images_per_second": step["images_per_second"],  # from the median step
            "step_seconds_p10": step["p10_seconds"], "step_seconds_p50": step["median_seconds"],
            "step_seconds_p90": step["p90_seconds"],
            "mean_loss": report["benchmark"]["mean_loss"],
            "achieved_flops_per_second": step["images_per_second"] * 3 * report["model"]["flops_per_image"],
            "peak_rss_bytes": report["memory"]["peak_rss_bytes"],
            "precision": report["environment"].get("precision", column["precision"])}


def run_pytorch(args, workload, point, column, seed):
    threads = os.cpu_count() if column.get("default_threads") else args.threads
    settings = ["--threads", str(threads), "--steps", str(point["steps"]),
                "--warmup-steps", str(point["warmup_steps"]), "--seed", str(seed),
                "--batch-size", str(point["batch_size"]), "--width", str(point["width"]),
                "--math", PYTORCH_MATH[column["precision"]],
                "--precision", "bf16" if column["precision"] == "bf16" else "fp32",
                "--memory-format", column["memory_format"]]
    if workload["name"] == "lenet":
        command = [args.python, str(ROOT / "scripts" / "pytorch_lenet.py"), "--device", args.device]
    elif args.device == "cpu":  # the config's recipe, built by the peer from the runner's config
        command = [args.python, str(ROOT / "scripts" / "pytorch_peer.py"), "bench",
                   str(workload["config"])]
    else:
        return {"error": ["the ResNet-8 peer runs on the CPU only"]}
    # The peer asks this runner to expand a config written with blocks or includes.
    out = subprocess.run(command + settings, capture_output=True, text=True,
                         env={**os.environ, "RUNNER": str(args.runner)})
    if out.returncode != 0:
        return {"error": last_lines(out, 3)}
    return json.loads(out.stdout.strip().splitlines()[-1])


RUNS = {"runner": run_runner, "pytorch": run_pytorch}


def pytorch_blas(args):
    """The BLAS library the PyTorch peer's matrix products run on (peer_settings.blas_library):
    on the reference BLAS the peer is not at its best, and the tables say so."""
    code = (f"import sys; sys.path.insert(0, {str(ROOT / 'scripts')!r}); import peer_settings; "
            "print(peer_settings.blas_library())")
    out = subprocess.run([args.python, "-c", code], capture_output=True, text=True)
    return out.stdout.strip() or None if out.returncode == 0 else None


# ---- one point --------------------------------------------------------------------------------

def summarise(runs):
    """A column's runs as min/median/max images/s, the median run (its step times, memory and
    loss stand for the column) and the median mean loss over the seeds; a column with no good
    run is its last error."""
    good = [r for r in runs if "error" not in r]
    if not good:
        return {"error": runs[-1]["error"] if runs else ["not run"], "runs": runs}
    rates = [r["images_per_second"] for r in good]
    by_rate = sorted(good, key=lambda r: r["images_per_second"])
    return {"images_per_second": {"min": min(rates), "median": statistics.median(rates),
                                  "max": max(rates)},
            "mean_loss": statistics.median(r["mean_loss"] for r in good),
            "median_run": by_rate[(len(by_rate) - 1) // 2], "runs": runs}


def median_rate(point, name):
    """A column's median images/s, or None where it failed."""
    summary = point["columns"][name]
    return summary["images_per_second"]["median"] if "error" not in summary else None


def best(point, keep):
    """The name of the fastest column (median images/s) among those `keep` accepts, or None."""
    rated = [(median_rate(point, c["name"]), c["name"]) for c in point["configurations"]
             if keep(c) and median_rate(point, c["name"]) is not None]
    return max(rated)[1] if rated else None


def ratios(point, device):
    """Runner over PyTorch, from medians: the fastest of each side (the runner's diagnostic
    oneDNN-only column aside), then each runner precision against PyTorch's fastest of it."""
    def ratio(runner, pytorch):
        if runner is None or pytorch is None:
            return None
        return {"runner": runner, "pytorch": pytorch,
                "ratio": median_rate(point, runner) / median_rate(point, pytorch)}

    def pytorch_at(precision):
        return best(point, lambda c: c["side"] == "pytorch" and c["precision"] == precision)

    runner_best = best(point, lambda c: c["side"] == "runner" and not c.get("diagnostic"))
    result = {"best": ratio(runner_best, best(point, lambda c: c["side"] == "pytorch"))}
    for p in PRECISIONS[device_type(device)]:
        runner = f"runner {p}" if median_rate(point, f"runner {p}") is not None else None
        result[p] = ratio(runner, pytorch_at(p))
    return result


def busy(args, workload, point):
    """The busy-machine column: for each side, its fastest column run twice at once with the
    side's default threads, the two processes' images/s summed and put against the column's
    median alone."""
    result = {}
    for side in ("runner", "pytorch"):
        name = best(point, lambda c: c["side"] == side and not c.get("diagnostic"))
        if name is None:
            continue
        column = {**next(c for c in point["configurations"] if c["name"] == name),
                  "default_threads": True}
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            pair = list(pool.map(lambda seed: RUNS[side](args, workload, point, column, seed), (0, 1)))
        failed = [r for r in pair if "error" in r]
        if failed:
            result[side] = {"column": name, "error": failed[0]["error"]}
            continue
        combined = sum(r["images_per_second"] for r in pair)
        result[side] = {"column": name, "images_per_second": [r["images_per_second"] for r in pair],
                        "combined": combined, "alone": median_rate(point, name),
                        "ratio": combined / median_rate(point, name)}
    return result


def steps_for(args, batch, images_scale=1.0):
    """Timed and warm-up steps of a point, the same on both sides: about --images images timed
    (times the workload's images_scale; at least 10 steps), and warm-up of about 2000 images (3
    to 20 steps: enough for oneDNN's primitives and the allocators to settle; batch 512 would
    otherwise warm up on 10,240)."""
    return max(10, int(args.images * images_scale) // batch), max(3, min(20, 2000 // batch))


def measure(args, workload, batch, width):
    """One point: every column --repeats times, runner and PyTorch alternating."""
    steps, warmup = steps_for(args, batch, workload.get("images_scale", 1.0))
    point = {"workload": workload["name"], "device": args.device, "width": width,
             "batch_size": batch, "steps": steps, "warmup_steps": warmup,
             "configurations": columns(args.device, workload["name"])}
    runs = {c["name"]: [] for c in point["configurations"]}
    for seed in range(args.repeats):
        for column in point["configurations"]:
            done = runs[column["name"]]
            if done and "error" in done[-1]:
                continue  # a refused setting is refused every time
            done.append(RUNS[column["side"]](args, workload, point, column, seed))
    point["columns"] = {name: summarise(r) for name, r in runs.items()}
    point["ratios"] = ratios(point, args.device)
    if args.busy:
        point["busy"] = busy(args, workload, point)
    headline = point["ratios"]["best"]
    print(f"{workload['name']} width {width:g} batch {batch}: "
          + (f"{headline['runner']} / {headline['pytorch']} = {headline['ratio']:.2f}x"
             if headline else "no ratio (errors)"), file=sys.stderr)
    return point


# ---- tables -----------------------------------------------------------------------------------

def rate_cell(summary):
    if "error" in summary:
        return "error"
    r = summary["images_per_second"]
    return f"{r['median']:,.0f} ({r['min']:,.0f}-{r['max']:,.0f})"


def ratio_cell(ratio):
    return f"{ratio['ratio']:.2f}x" if ratio else ""


def step_ms(point, name):
    summary = point["columns"].get(name) if name else None
    if not summary or "error" in summary:
        return ""
    run = summary["median_run"]
    return "/".join(f"{1e3 * run[k]:.2f}" for k in ("step_seconds_p10", "step_seconds_p50",
                                                    "step_seconds_p90"))


def peak_mb(point, name):
    summary = point["columns"].get(name) if name else None
    if not summary or "error" in summary:
        return "?"
    return f"{summary['median_run']['peak_rss_bytes'] / 2**20:.0f}"


def short(name):
    """A column's name without its side ("runner bf16" -> "bf16"), for a cell that says it."""
    return name.split(" ", 1)[1] if name else "error"


def label(point):
    return f"| {point['workload']} | {point['width']:g} | {point['batch_size']} |"


def throughput_table(result):
    """Images/s per configuration: median (min-max) of the repeats."""
    configurations = [c for p in result["points"] for c in p["configurations"]]
    names = list(dict.fromkeys(c["name"] for side in ("runner", "pytorch")
                               for c in configurations if c["side"] == side))
    rows = ["| workload | width | batch | " + " | ".join(names) + " |",
            "|" + "---|" * (3 + len(names))]
    for p in result["points"]:
        cells = [rate_cell(p["columns"][n]) if n in p["columns"] else "" for n in names]
        rows.append(label(p) + " " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n"


def ratio_table(result):
    """The ratios (medians), the best columns' step times and memory, the runner's share of the
    attainable FP32 rate and both sides' fp32 mean losses (medians over the seeds)."""
    precisions = PRECISIONS[device_type(result["device"])]
    peak = result["attainable_flops_per_second"]
    peak_bf16 = (result.get("attainable_bf16_flops_per_second")
                 if "bf16" in precisions and "runner bf16" in result["points"][0]["columns"] else None)
    rows = ["| workload | width | batch | fastest: runner / PyTorch | ratio | "
            + " | ".join(f"{p} / PyTorch's fastest {p}" for p in precisions)
            + " | runner step ms p10/p50/p90 (fastest) | PyTorch step ms p10/p50/p90 (fastest) "
            "| peak MB runner / PyTorch | runner fp32: of attainable FP32 "
            + ("| runner bf16: of attainable bf16 " if peak_bf16 else "")
            + "| mean loss runner fp32 / PyTorch fp32 nchw |",
            "|" + "---|" * (10 + len(precisions) + (1 if peak_bf16 else 0))]
    for p in result["points"]:
        best_pair = p["ratios"]["best"] or {}
        runner, pytorch = best_pair.get("runner"), best_pair.get("pytorch")
        fp32 = p["columns"]["runner fp32"]
        torch_fp32 = p["columns"]["PyTorch fp32 nchw"]
        share = (f"{100 * fp32['median_run']['achieved_flops_per_second'] / peak:.1f} %"
                 if peak and "error" not in fp32 else "")
        bf16 = p["columns"].get("runner bf16", {"error": True})
        bf16_share = ((f"{100 * bf16['median_run']['achieved_flops_per_second'] / peak_bf16:.1f} %"
                       if "error" not in bf16 else "") + " | " if peak_bf16 else "")
        losses = (f"{fp32['mean_loss']:.3f} / {torch_fp32['mean_loss']:.3f}"
                  if "error" not in fp32 and "error" not in torch_fp32 else "")
        rows.append(label(p) + f" {short(runner)} / {short(pytorch)} | "
                    f"{ratio_cell(p['ratios']['best'])} | "
                    + " | ".join(ratio_cell(p["ratios"][q]) for q in precisions)
                    + f" | {step_ms(p, runner)} | {step_ms(p, pytorch)} "
                    f"| {peak_mb(p, runner)} / {peak_mb(p, pytorch)} | {share} | {bf16_share}{losses} |")
    return "\n".join(rows) + "\n"


def busy_table(result):
    """Two of each side's fastest column at once, default threads: combined over one alone."""
    def cell(entry):
        if not entry:
            return ""
        if "error" in entry:
            return "error: " + " ".join(entry["error"])[:80]
        a, b = entry["images_per_second"]
        return (f"{a:,.0f} + {b:,.0f} = {entry['combined']:,.0f} / {entry['alone']:,.0f} alone "
                f"= **{entry['ratio']:.2f}x**")
    rows = ["| workload | width | batch | runner, two at once | PyTorch, two at once |",
            "|---|---|---|---|---|"]
    for p in result["points"]:
        entry = p.get("busy", {})
        rows.append(label(p) + f" {cell(entry.get('runner'))} | {cell(entry.get('pytorch'))} |")
    return "\n".join(rows) + "\n"


def errors(result):
    """One line per failed column: what the runner or the peer said."""
    lines = [f"- {p['workload']} width {p['width']:g} batch {p['batch_size']}, {name}: "
             + " ".join(s["error"]) for p in result["points"] for name, s in p["columns"].items()
             if "error" in s]
    return ("\nFailed columns:\n\n" + "\n".join(lines) + "\n") if lines else ""


def reference_blas(path):
    return bool(path) and not any(fast in path for fast in ("openblas", "mkl", "blis"))


def markdown(result, cpu):
    peak = result["attainable_flops_per_second"]
    return (f"# runner vs PyTorch, {result['date']}, {result['host']}\n\n{cpu}, "
            f"{result['threads']} threads, device {result['device']}"
            + (f", attainable FP32 {peak / 1e9:.1f} GFLOP/s" if peak else "")
            + (f", attainable bf16 {result['attainable_bf16_flops_per_second'] / 1e9:.1f} GFLOP/s"
               if result.get("attainable_bf16_flops_per_second") else "")
            + (f", PyTorch's BLAS {result['pytorch_blas']}" if result.get("pytorch_blas") else "")
            + (" (the reference BLAS: PyTorch is not at its best; apt install libopenblas0-pthread)"
               if reference_blas(result.get("pytorch_blas")) else "")
            + f", runs per column: {result['repeats']}"
            + f", suite: {result['wall_seconds'] / 60:.0f} min\n\n"
            "Images/s per configuration, median (min-max) of the runs, runner and PyTorch "
            "alternating, run r with seed r on both sides. PyTorch fp32 is strict FP32 (TF32 "
            "off); tf32 and bf16 are its default math, bf16 under torch.autocast; nchw or "
            "channels_last is the layout of the model and the batches.\n\n"
            + throughput_table(result)
            + "\nRatios of medians: the runner's fastest configuration against PyTorch's fastest, "
            "then each runner precision against PyTorch's fastest of that precision. Step times, "
            "memory and the mean loss are those of the median run (the loss: the median over the "
            "seeds).\n\n"
            + ratio_table(result)
            + ("\nThe busy machine: each side's fastest column started twice at once, each process "
               "with its side's default threads (the runner's fitted to the cores the other leaves, "
               "PyTorch's all cores); their images/s (median step) combined, over the column's "
               "median alone.\n\n" + busy_table(result)
               if any("busy" in p for p in result["points"]) else "")
            + errors(result))


# ---- the suite --------------------------------------------------------------------------------

def workloads(args):
    """(workload, batch sizes, widths) in the order measured."""
    known = {
        "lenet": ({"name": "lenet", "config": args.config}, args.batch_sizes, args.widths),
        "resnet8": ({"name": "resnet8",
                     "config": ROOT / "configs" / "bench" / "resnet8_cifar_synthetic.yaml"},
                    [32, 128], [1]),
        # Larger networks: fewer images per timed run (--images scaled), same batches.
        "resnet18": ({"name": "resnet18", "images_scale": 0.2,
                      "config": ROOT / "configs" / "bench" / "resnet18_cifar_synthetic.yaml"},
                     [32, 128], [1]),
        "mobilenetv2": ({"name": "mobilenetv2", "images_scale": 0.3,
                         "config": ROOT / "configs" / "bench" / "mobilenetv2_cifar_synthetic.yaml"},
                        [32, 128], [1]),
        "vit": ({"name": "vit", "images_scale": 0.3,
                 "config": ROOT / "configs" / "bench" / "vit_tiny_cifar_synthetic.yaml"},
                [32, 128], [1]),
    }
    return [known[name] for name in args.workloads]


def peak_flops(args):
    """The attainable FP32 and bf16 rates (`runner devices --peak`), FLOP/s; None where absent."""
    out = subprocess.run([str(args.runner), "devices", "--peak"], capture_output=True, text=True,
                         env={**os.environ, "OMP_NUM_THREADS": str(args.threads)})
    peaks = {"fp32": None, "bf16": None}
    for line in out.stdout.splitlines():
        for precision in peaks:
            if f"attainable {precision.upper() if precision == 'fp32' else precision}:" in line:
                peaks[precision] = float(line.split(":")[1].split()[0]) * 1e9
    return peaks


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    # The build folder's runner, or the launcher at the top of a GPU bundle.
    default_runner = next((p for p in (ROOT / "build" / "runner", ROOT / "runner") if p.exists()),
                          ROOT / "build" / "runner")
    parser.add_argument("--runner", type=Path, default=default_runner)
    parser.add_argument("--config", type=Path, default=ROOT / "configs" / "bench" / "lenet_cifar_synthetic.yaml")
    parser.add_argument("--python", default=sys.executable,
                        help="the Python that has torch (default: the one running this script)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[4, 32, 128])
    parser.add_argument("--widths", type=float, nargs="+", default=[1, 4])
    parser.add_argument("--workloads", nargs="+",
                        choices=["lenet", "resnet8", "resnet18", "mobilenetv2", "vit"],
                        default=["lenet", "resnet8", "resnet18", "mobilenetv2", "vit"])
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--images", type=int, default=3000,
                        help="images per timed run, about (both sides run the same steps)")
    parser.add_argument("--repeats", type=int, default=5,
                        help="runs per column (seeds 0..N-1), reported as min/median/max")
    parser.add_argument("--precisions", nargs="+",
                        help="the precisions to time, fp32 among them (default: all the device "
                             "has: cpu fp32 bf16, cuda fp32 tf32 bf16)")
    parser.add_argument("--output", type=Path, default=ROOT / "results" / "bench")
    parser.add_argument("--no-busy", dest="busy", action="store_false",
                        help="leave out the busy-machine column (two runs of a point at once)")
    args = parser.parse_args()
    if args.precisions:
        offered = PRECISIONS[device_type(args.device)]
        if "fp32" not in args.precisions or not set(args.precisions) <= set(offered):
            parser.error(f"--precisions: fp32 and any of {' '.join(offered)} on {args.device}")
        PRECISIONS[device_type(args.device)] = [p for p in offered if p in args.precisions]
    args.scratch = args.output / "runs"

    start = time.monotonic()
    result = {"date": datetime.date.today().isoformat(), "host": socket.gethostname(),
              "device": args.device, "threads": args.threads, "repeats": args.repeats,
              "precisions": PRECISIONS[device_type(args.device)],
              "images": args.images, "points": [],
              "attainable_flops_per_second": None, "attainable_bf16_flops_per_second": None}
    if args.device == "cpu":
        result["pytorch_blas"] = pytorch_blas(args)
        peaks = peak_flops(args)
        result["attainable_flops_per_second"] = peaks["fp32"]
        result["attainable_bf16_flops_per_second"] = peaks["bf16"]
    for workload, batch_sizes, widths in workloads(args):
        for width in widths:
            for batch in batch_sizes:
                result["points"].append(measure(args, workload, batch, width))
    result["wall_seconds"] = time.monotonic() - start
    args.output.mkdir(parents=True, exist_ok=True)
    stem = args.output / f"{result['date']}-{result['host']}-{args.device}"
    stem.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n")
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    table = markdown(result, cpu)
    stem.with_suffix(".md").write_text(table)
    print(table)


if __name__ == "__main__":
    main()
