#!/usr/bin/env python3
"""The benchmark suite: runner against PyTorch on the same machine, the same threads and the
same in-memory workloads, alternating the two so that drift hits both. Writes
results/bench/<date>-<host>.json and a Markdown table next to it. Two workloads:
  lenet    the tutorial's LeNet and eager loop (scripts/pytorch_lenet.py), at each batch size
           and width given;
  resnet8  configs/resnet8_cifar.yaml's network and recipe on CIFAR-10-shaped images (batch
           norm, Nesterov SGD with warm-up and cosine, label smoothing, random crop and flip on
           both sides; scripts/pytorch_peer.py bench), at batch 32 and 128, width 1.

  /usr/bin/python3 scripts/bench.py [--device cpu|cuda] [--batch-sizes 4 32 128 512] [--widths 1 4]
                                    [--workloads lenet resnet8]

On a GPU (`make bench-gpu`, or from a bundle made by scripts/gpu_bundle.sh:
`python3 runner-gpu/scripts/bench.py --device cuda ...`) both peers hold the data in device memory
and run ahead of the GPU; their step times include an equal share of the wait every 50 steps.
"""
import argparse
import datetime
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_runner(args, workload, batch, width, steps, own_kernels=True):
    """own_kernels False: RUNNER_OWN_KERNELS=0, oneDNN for every layer (what the own kernels add)."""
    command = [str(args.runner), "bench", str(workload["config"]), "--quiet", "--output",
               str(args.scratch), "--steps", str(steps), "--warmup-steps", "20",
               "--profile-steps", "0", "--set", f"training.batch_size={batch}",
               "--set", f"model.width={width}", "--set", f"device={args.device}",
               "--set", f"training.threads={args.threads}"]
    env = {**os.environ, **({} if own_kernels else {"RUNNER_OWN_KERNELS": "0"})}
    out = subprocess.run(command, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        return {"error": (out.stdout + out.stderr).strip().splitlines()[-1:]}
    report = json.loads(Path(out.stdout.strip().splitlines()[-1].removeprefix("report: ")).read_text())
    step = report["step_time"]
    return {"images_per_second": step["images_per_second"],
            "step_seconds_p10": step["p10_seconds"], "step_seconds_p50": step["median_seconds"],
            "step_seconds_p90": step["p90_seconds"],
            "mean_loss": report["benchmark"]["mean_loss"],
            "achieved_flops_per_second": step["images_per_second"] * 3 * report["model"]["flops_per_image"],
            "peak_rss_bytes": report["memory"]["peak_rss_bytes"]}


def run_pytorch(args, workload, batch, width, steps, math="strict"):
    """math strict: FP32 like the runner (the headline ratio); default: PyTorch as shipped (TF32)."""
    if workload["name"] == "lenet":
        command = [args.python, str(ROOT / "scripts" / "pytorch_lenet.py"), "--batch-size", str(batch),
                   "--width", str(width), "--threads", str(args.threads), "--device", args.device,
                   "--steps", str(steps), "--warmup-steps", "20", "--math", math]
    else:  # the config's recipe, built by the peer from the runner's config
        if args.device != "cpu" or math != "strict":
            return {"error": ["the ResNet-8 peer runs on the CPU only"]}
        command = [args.python, str(ROOT / "scripts" / "pytorch_peer.py"), "bench",
                   str(workload["config"]), "--batch-size", str(batch), "--width", str(width),
                   "--threads", str(args.threads), "--steps", str(steps), "--warmup-steps", "20"]
    out = subprocess.run(command, capture_output=True, text=True)
    if out.returncode != 0:
        return {"error": (out.stdout + out.stderr).strip().splitlines()[-1:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def workloads(args):
    """(workload, batch sizes, widths) in the order measured."""
    known = {
        "lenet": ({"name": "lenet", "config": args.config}, args.batch_sizes, args.widths),
        "resnet8": ({"name": "resnet8",
                     "config": ROOT / "configs" / "bench" / "resnet8_cifar_synthetic.yaml"},
                    [32, 128], [1]),
    }
    return [known[name] for name in args.workloads]


def peak_flops(args):
    out = subprocess.run([str(args.runner), "devices", "--peak"], capture_output=True, text=True,
                         env={**os.environ, "OMP_NUM_THREADS": str(args.threads)})
    for line in out.stdout.splitlines():
        if "attainable FP32" in line:
            return float(line.split(":")[1].split()[0]) * 1e9
    return None


def better(a, b):
    """The faster of two measurements of one point (the noise on a shared machine only slows)."""
    if "error" in a:
        return b
    if "error" in b:
        return a
    return a if a["images_per_second"] >= b["images_per_second"] else b


def default_math(point):
    """The columns against PyTorch's default math (GPU points), else empty ones."""
    d = point.get("pytorch_default_math")
    if not d or "error" in d:
        return " | "
    return f"{d['images_per_second']:,.0f} | {point['ratio_to_default_math']:.2f}x"


def onednn_only(point):
    """The runner's images/s without its own kernels (resnet8 on the CPU), else empty."""
    r = point.get("runner_onednn_only")
    return f"{r['images_per_second']:,.0f}" if r and "error" not in r else ""


def markdown(result):
    rows = ["| workload | device | width | batch | runner img/s | PyTorch img/s (FP32) | ratio | runner step ms p10/p50/p90 "
            "| PyTorch step ms p10/p50/p90 | runner peak MB | PyTorch peak MB | of attainable FP32 "
            "| mean loss runner / PyTorch | PyTorch img/s (its defaults: TF32) | ratio to defaults "
            "| runner img/s, oneDNN only (RUNNER_OWN_KERNELS=0) |",
            "|" + "---|" * 16]
    ms = lambda m: "/".join(f"{1e3 * m[k]:.2f}" for k in ("step_seconds_p10", "step_seconds_p50", "step_seconds_p90"))
    for p in result["points"]:
        r, t = p["runner"], p["pytorch"]
        if "error" in r or "error" in t:
            rows.append(f"| {p.get('workload', 'lenet')} | {p['device']} | {p['width']} | {p['batch_size']} | {r.get('error', '')} | {t.get('error', '')} |" + " |" * 10)
            continue
        peak = result["attainable_flops_per_second"]
        fraction = f"{100 * r['achieved_flops_per_second'] / peak:.1f} %" if peak else "n/a"
        rows.append(f"| {p.get('workload', 'lenet')} | {p['device']} | {p['width']} | {p['batch_size']} | {r['images_per_second']:,.0f} "
                    f"| {t['images_per_second']:,.0f} | {p['ratio']:.2f}x | {ms(r)} | {ms(t)} "
                    f"| {r['peak_rss_bytes'] / 2**20:.0f} | {t['peak_rss_bytes'] / 2**20:.0f} | {fraction} "
                    f"| {r['mean_loss']:.3f} / {t['mean_loss']:.3f} | {default_math(p)} | {onednn_only(p)} |")
    return "\n".join(rows) + "\n"


def measure(args, workload, batch, width):
    """One point: runner and PyTorch alternating, the faster run of each kept."""
    steps = max(20, args.images // batch)
    runner, torch = {"error": ["not run"]}, {"error": ["not run"]}
    torch_default = {"error": ["not run"]}
    # The own kernels (16-channel Winograd convolutions) matter to the ResNet on the CPU.
    runner_plain = {"error": ["not run"]} if workload["name"] == "resnet8" and args.device == "cpu" else None
    for repeat in range(args.repeats):  # runner, PyTorch, runner, PyTorch, ...
        runner = better(runner, run_runner(args, workload, batch, width, steps))
        torch = better(torch, run_pytorch(args, workload, batch, width, steps))
        if runner_plain is not None:
            runner_plain = better(runner_plain, run_runner(args, workload, batch, width, steps, False))
        if args.device != "cpu":  # TF32 exists only on the GPU
            torch_default = better(torch_default,
                                   run_pytorch(args, workload, batch, width, steps, "default"))
    point = {"workload": workload["name"], "device": args.device, "width": width,
             "batch_size": batch, "runner": runner, "pytorch": torch}
    if runner_plain is not None:
        point["runner_onednn_only"] = runner_plain
    if "error" not in runner and "error" not in torch:
        point["ratio"] = runner["images_per_second"] / torch["images_per_second"]
    if args.device != "cpu":
        point["pytorch_default_math"] = torch_default
        if "error" not in runner and "error" not in torch_default:
            point["ratio_to_default_math"] = (runner["images_per_second"]
                                              / torch_default["images_per_second"])
    print(f"{workload['name']} width {width:g} batch {batch}: runner "
          f"{runner.get('images_per_second', 0):,.0f} img/s, PyTorch "
          f"{torch.get('images_per_second', 0):,.0f} img/s", file=sys.stderr)
    return point


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
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[4, 32, 128, 512])
    parser.add_argument("--widths", type=float, nargs="+", default=[1, 4])
    parser.add_argument("--workloads", nargs="+", choices=["lenet", "resnet8"],
                        default=["lenet", "resnet8"])
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--images", type=int, default=6000,
                        help="images per timed run, about (both peers run the same steps)")
    parser.add_argument("--repeats", type=int, default=2, help="alternating runs per point (best kept)")
    parser.add_argument("--output", type=Path, default=ROOT / "results" / "bench")
    args = parser.parse_args()
    args.scratch = args.output / "runs"

    result = {"date": datetime.date.today().isoformat(), "host": socket.gethostname(),
              "device": args.device, "threads": args.threads, "points": [],
              "attainable_flops_per_second": peak_flops(args) if args.device == "cpu" else None}
    for workload, batch_sizes, widths in workloads(args):
        for width in widths:
            for batch in batch_sizes:
                result["points"].append(measure(args, workload, batch, width))
    args.output.mkdir(parents=True, exist_ok=True)
    stem = args.output / f"{result['date']}-{result['host']}-{args.device}"
    stem.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n")
    table = markdown(result)
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    peak = result["attainable_flops_per_second"]
    header = (f"# runner vs PyTorch, {result['date']}, {result['host']}\n\n{cpu}, {args.threads} threads, "
              f"device {args.device}" + (f", attainable FP32 {peak / 1e9:.1f} GFLOP/s" if peak else "") + "\n\n"
              "The ratio compares like with like: PyTorch with TF32 off (strict FP32, as the runner "
              "computes). On a GPU the last two columns are PyTorch as its users run it (its "
              "defaults: TF32 convolutions).\n\n")
    stem.with_suffix(".md").write_text(header + table)
    print(header + table)


if __name__ == "__main__":
    main()
