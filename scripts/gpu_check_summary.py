#!/usr/bin/env python3
"""The summary of a GPU check (scripts/gpu_check.sh run OUT_DIR): reads what the steps left in
WORK (steps.tsv, logs/, tests.json, runs/, nvml.csv) and writes OUT_DIR/summary.json and
OUT_DIR/summary.md. Standard library only (it runs on the GPU machine's Python).

  python3 scripts/gpu_check_summary.py WORK [OUT_DIR]     (OUT_DIR: WORK where not given)

summary.json: date, host, status (passed, failed, no_gpu), exit_code, device (the GPU's name,
or null), no_gpu_reason, devices (runner devices' lines), tests {passed, failed, skipped,
failed_names, skipped_names}, steps [{step, status, seconds, exit, reason}], checks [{check,
passed, detail}] and figures {lenet, checkpoint, resnet8, nvml, sweep, bench}.
Exits as gpu_check.sh run does: 0 all passed; 1 a step or a check failed, or a step was not run;
3 no usable GPU (GPU steps skipped), the rest passed.
"""
import datetime
import glob
import json
import os
import socket
import statistics
import sys

# Test accuracy of one checkpoint on the same test set, scored by the GPU run, the CPU backend
# and PyTorch: float rounding may flip an argmax between near-equal logits, on a few images.
ACCURACY_AGREEMENT = 0.002


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def read_json(path):
    text = read(path)
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def newest(pattern):
    paths = sorted(glob.glob(pattern, recursive=True), key=os.path.getmtime)
    return paths[-1] if paths else None


def last_line(path):
    """The last line of a log that says something, shortened for a table cell."""
    lines = [l.strip() for l in (read(path) or "").splitlines() if l.strip()]
    return (lines[-1][:300].replace("|", "/")) if lines else None


def steps_of(out):
    rows = []
    for line in (read(os.path.join(out, "steps.tsv")) or "").splitlines()[1:]:
        fields = (line.split("\t") + [""] * 5)[:5]
        name, status, seconds, code, reason = fields
        reason = reason.strip() or None
        if status in ("failed", "timed_out"):  # what the step said last
            said = last_line(os.path.join(out, "logs", f"{name}.log"))
            reason = "; ".join(r for r in (reason, said) if r) or None
        rows.append({"step": name, "status": status, "seconds": int(seconds or 0),
                     "exit": int(code) if code.lstrip("-").isdigit() else None,
                     "reason": reason})
    return rows


def devices_of(out):
    lines = (read(os.path.join(out, "logs", "devices.log")) or "").splitlines()
    gpu = next((l for l in lines if l.startswith("cuda:") and not l.startswith("cuda: ")), None)
    name = gpu.split(": ", 1)[1].split(",")[0] if gpu else None
    reason = next((l.split(": ", 2)[2] for l in lines if l.startswith("cuda: not available: ")),
                  None)
    return name, reason, lines


def tests_of(out):
    """Counts from backend_tests' --gtest_output JSON."""
    counts = {"passed": 0, "failed": 0, "skipped": 0, "failed_names": [], "skipped_names": []}
    result = read_json(os.path.join(out, "tests.json"))
    if not result:
        return counts
    for suite in result.get("testsuites", []):
        for test in suite.get("testsuite", []):
            name = f"{suite.get('name')}.{test.get('name')}"
            if test.get("status") == "NOTRUN":
                continue
            if test.get("failures"):
                counts["failed"] += 1
                counts["failed_names"].append(name)
            elif test.get("result") == "SKIPPED":
                counts["skipped"] += 1
                counts["skipped_names"].append(name)
            else:
                counts["passed"] += 1
    return counts


def run_figures(report_path):
    """The figures of one run's report."""
    report = read_json(report_path) if report_path else None
    if not report:
        return None
    metrics = report.get("metrics", {})
    throughput = report.get("throughput", {})
    gpu = report.get("gpu") or {}
    return {"report": report_path, "status": report.get("status"),
            "device": report.get("device"),
            "precision": report.get("environment", {}).get("precision"),
            "epochs": report.get("config", {}).get("training", {}).get("epochs"),
            "test_accuracy": metrics.get("test_accuracy"), "test_loss": metrics.get("test_loss"),
            "train_images_per_second": throughput.get("train_images_per_second"),
            "whole_run_images_per_second": throughput.get("whole_run_images_per_second"),
            "train_seconds": throughput.get("train_seconds"),
            "checkpoint": (report.get("checkpoint") or {}).get("path"),
            "training_set_on_device": gpu.get("training_set_on_device"),
            "cuda_graph_fallback": gpu.get("cuda_graph_fallback"),
            "loss_scaling": gpu.get("loss_scaling"),
            "utilisation": gpu.get("utilisation"),
            "device_memory_bytes": gpu.get("device_memory_bytes"),
            "algorithms": gpu.get("algorithms")}


def lenet_of(out):
    figures = {}
    order = ["fp32", "tf32", "bf16", "fp16"]
    folders = glob.glob(os.path.join(out, "runs", "lenet-*"))
    for folder in sorted(folders, key=lambda f: (order + [os.path.basename(f)[6:]]).index(
            os.path.basename(f)[6:])):
        if os.path.isdir(folder):
            precision = os.path.basename(folder)[len("lenet-"):]
            figures[precision] = run_figures(newest(os.path.join(folder, "**", "report.json")))
    return figures


def last_json_line(path):
    for line in reversed((read(path) or "").splitlines()):
        try:
            return json.loads(line)
        except ValueError:
            continue
    return None


def checkpoint_of(out, lenet):
    trained = next((f for f in lenet.values() if f and f.get("checkpoint")), None)
    cpu = run_figures(newest(os.path.join(out, "runs", "eval-cpu", "**", "report.json")))
    pytorch = last_json_line(os.path.join(out, "logs", "eval-pytorch.log"))
    if not trained and not cpu and not pytorch:
        return None
    return {"checkpoint": trained and trained["checkpoint"],
            "gpu_test_accuracy": trained and trained["test_accuracy"],
            "cpu_test_accuracy": cpu and cpu["test_accuracy"],
            "pytorch_test_accuracy": pytorch and pytorch.get("test_accuracy"),
            "pytorch_tensors": pytorch and pytorch.get("tensors")}


def nvml_of(out, resnet8):
    """nvidia-smi's samples while ResNet-8 trained, and the runner's own NVML figures."""
    samples = []
    for line in (read(os.path.join(out, "nvml.csv")) or "").splitlines():
        fields = [f.strip() for f in line.split(",")]
        try:
            samples.append([float(f) for f in fields[1:5]])
        except ValueError:
            continue
    figures = {"source": "nvidia-smi every 200 ms during resnet8", "samples": len(samples)}
    if samples:
        util, memory, power, clock = zip(*samples)
        figures.update({"utilisation_mean_percent": statistics.mean(util),
                        "utilisation_max_percent": max(util),
                        "memory_used_max_mib": max(memory), "power_max_watts": max(power),
                        "sm_clock_max_mhz": max(clock)})
    figures["runner_utilisation"] = resnet8 and resnet8.get("utilisation")
    return figures


def sweep_of(out):
    summary = read_json(newest(os.path.join(out, "runs", "sweep", "**", "summary.json")) or "")
    if not summary:
        return None
    keys = ("device", "width", "batch_size", "status", "images_per_second", "speedup_over_cpu",
            "gpu_utilisation", "error")
    return [{k: p.get(k) for k in keys if k in p} for p in summary.get("points", [])]


def bench_of(out):
    result = read_json(newest(os.path.join(out, "runs", "bench", "*.json")) or "")
    if not result:
        return None
    points = []
    for p in result.get("points", []):
        columns = {name: (c["images_per_second"]["median"] if "error" not in c
                          else "error: " + " ".join(c["error"]))
                   for name, c in p.get("columns", {}).items()}
        ratios = {k: (r and {"runner": r["runner"], "pytorch": r["pytorch"], "ratio": r["ratio"]})
                  for k, r in p.get("ratios", {}).items()}
        points.append({"workload": p["workload"], "width": p["width"],
                       "batch_size": p["batch_size"], "images_per_second": columns,
                       "ratios": ratios})
    return {"repeats": result.get("repeats"), "wall_seconds": result.get("wall_seconds"),
            "points": points}


def checks_of(steps, tests, figures):
    checks = []
    ran = {s["step"]: s["status"] for s in steps}
    if ran.get("tests") == "passed" or tests["failed"]:
        checks.append({"check": "no GPU test failed", "passed": tests["failed"] == 0,
                       "detail": ", ".join(tests["failed_names"]) or None})
    checkpoint = figures.get("checkpoint") or {}
    gpu = checkpoint.get("gpu_test_accuracy")
    for side, where in (("cpu", "on the CPU"), ("pytorch", "in PyTorch")):
        other = checkpoint.get(f"{side}_test_accuracy")
        if ran.get(f"eval-{side}") == "passed" and gpu is not None:
            agree = other is not None and abs(other - gpu) <= ACCURACY_AGREEMENT
            checks.append({"check": f"the GPU's checkpoint scores the same {where}",
                           "passed": agree,
                           "detail": f"GPU {gpu}, {side} {other} (within {ACCURACY_AGREEMENT})"})
    # The sweep and the benchmark exit 0 with failed points or columns: those fail the check.
    if ran.get("sweep") == "passed":
        bad = [p for p in figures.get("sweep") or [] if p.get("status") != "completed"]
        checks.append({"check": "every cpu_vs_gpu point completed",
                       "passed": bool(figures.get("sweep")) and not bad,
                       "detail": "; ".join(f"{p.get('device')} width {p.get('width')} batch "
                                           f"{p.get('batch_size')}: {p.get('error') or p.get('status')}"
                                           for p in bad) or None})
    if ran.get("bench") == "passed":
        points = (figures.get("bench") or {}).get("points", [])
        bad = [f"batch {p['batch_size']} {name}: {rate}" for p in points
               for name, rate in p["images_per_second"].items() if isinstance(rate, str)]
        checks.append({"check": "every benchmark column ran", "passed": bool(points) and not bad,
                       "detail": "; ".join(bad) or None})
    if ran.get("resnet8") == "passed":
        nvml = figures.get("nvml") or {}
        runner = nvml.get("runner_utilisation") or {}
        sampled = ((nvml.get("utilisation_max_percent") or 0) > 0
                   or (runner.get("peak_gpu_percent") or 0) > 0)
        checks.append({"check": "GPU utilisation was sampled (NVML)", "passed": sampled,
                       "detail": f"{nvml.get('samples', 0)} nvidia-smi samples, peak "
                                 f"{nvml.get('utilisation_max_percent')} %; runner's NVML: "
                                 f"{runner.get('samples', 0)} samples, peak "
                                 f"{runner.get('peak_gpu_percent')} %"})
    return checks


def number(value, form):
    return format(value, form) if isinstance(value, (int, float)) else "-"


def markdown(s):
    lines = [f"# GPU check, {s['date']}, {s['device'] or 'no GPU'}", "",
             f"Status: **{s['status']}** (exit {s['exit_code']}) on {s['host']}."]
    if s["no_gpu_reason"]:
        lines.append(f"GPU steps skipped: {s['no_gpu_reason']}.")
    t = s["tests"]
    lines += ["", f"backend_tests: {t['passed']} passed, {t['failed']} failed, "
              f"{t['skipped']} skipped."]
    if t["failed_names"]:
        lines.append("Failed: " + ", ".join(t["failed_names"]) + ".")
    if t["skipped_names"]:
        shown = t["skipped_names"][:20]
        more = len(t["skipped_names"]) - len(shown)
        lines.append("Skipped: " + ", ".join(shown) + (f" and {more} more" if more else "") + ".")
    lines += ["", "| step | status | seconds | note |", "|---|---|---|---|"]
    for st in s["steps"]:
        lines.append(f"| {st['step']} | {st['status']} | {st['seconds']} | {st['reason'] or ''} |")
    if s["checks"]:
        lines += ["", "| check | result | detail |", "|---|---|---|"]
        for c in s["checks"]:
            lines.append(f"| {c['check']} | {'passed' if c['passed'] else 'FAILED'} "
                         f"| {c['detail'] or ''} |")
    f = s["figures"]
    runs = [(f"LeNet {p}", r) for p, r in (f.get("lenet") or {}).items() if r]
    if f.get("resnet8"):
        runs.append(("ResNet-8", f["resnet8"]))
    if runs:
        lines += ["", "| run | epochs | test accuracy | train images/s | training set on GPU "
                  "| GPU utilisation mean | loss scaling |", "|---|---|---|---|---|---|---|"]
        for name, r in runs:
            util = (r.get("utilisation") or {}).get("mean_gpu_percent")
            scaling = r.get("loss_scaling")
            scaling_text = (f"final scale {scaling.get('final_scale')}, "
                            f"{scaling.get('skipped_steps')} skipped" if scaling else "")
            lines.append(f"| {name} | {r.get('epochs')} | {number(r.get('test_accuracy'), '.4f')} "
                         f"| {number(r.get('train_images_per_second'), ',.0f')} "
                         f"| {r.get('training_set_on_device')} | {number(util, '.0f')} "
                         f"| {scaling_text} |")
    if f.get("checkpoint"):
        c = f["checkpoint"]
        lines += ["", "Checkpoint saved on the GPU, test accuracy: GPU "
                  f"{number(c['gpu_test_accuracy'], '.4f')}, CPU (runner eval) "
                  f"{number(c['cpu_test_accuracy'], '.4f')}, PyTorch "
                  f"{number(c['pytorch_test_accuracy'], '.4f')}."]
    nvml = f.get("nvml")
    if nvml and nvml.get("samples"):
        lines += ["", f"NVML (nvidia-smi, {nvml['samples']} samples during ResNet-8): utilisation "
                  f"mean {nvml['utilisation_mean_percent']:.0f} %, max "
                  f"{nvml['utilisation_max_percent']:.0f} %; memory used max "
                  f"{nvml['memory_used_max_mib']:.0f} MiB; power max "
                  f"{nvml['power_max_watts']:.0f} W."]
    if f.get("sweep"):
        lines += ["", "cpu_vs_gpu sweep:", "", "| device | width | batch | images/s | speedup "
                  "over CPU | status |", "|---|---|---|---|---|---|"]
        for p in f["sweep"]:
            lines.append(f"| {p.get('device')} | {p.get('width')} | {p.get('batch_size')} "
                         f"| {number(p.get('images_per_second'), ',.0f')} "
                         f"| {number(p.get('speedup_over_cpu'), '.2f')} | {p.get('status')} |")
    if f.get("bench"):
        b = f["bench"]
        names = list(dict.fromkeys(n for p in b["points"] for n in p["images_per_second"]))
        lines += ["", f"runner vs PyTorch (median images/s of {b['repeats']} runs; PyTorch fp32 "
                  "is strict FP32, tf32 its default math):", "",
                  "| batch | " + " | ".join(names) + " | fastest runner / fastest PyTorch |",
                  "|---" * (len(names) + 2) + "|"]
        for p in b["points"]:
            cells = [number(p["images_per_second"].get(n), ",.0f")
                     if not isinstance(p["images_per_second"].get(n), str) else "error"
                     for n in names]
            best = p["ratios"].get("best")
            lines.append(f"| {p['batch_size']} | " + " | ".join(cells)
                         + f" | {number(best and best['ratio'], '.2f')} |")
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    out, results = sys.argv[1], sys.argv[-1]
    steps = steps_of(out)
    device, reason, device_lines = devices_of(out)
    tests = tests_of(out)
    lenet = lenet_of(out)
    resnet8 = run_figures(newest(os.path.join(out, "runs", "resnet8", "**", "report.json")))
    figures = {"lenet": lenet, "checkpoint": checkpoint_of(out, lenet), "resnet8": resnet8,
               "nvml": nvml_of(out, resnet8), "sweep": sweep_of(out), "bench": bench_of(out)}
    checks = checks_of(steps, tests, figures)
    failed = [s for s in steps if s["status"] in ("failed", "timed_out", "not_run")
              and s["step"] != "environment"]
    no_gpu = device is None
    if failed or not all(c["passed"] for c in checks) or not steps:
        status, code = "failed", 1
    elif no_gpu:
        status, code = "no_gpu", 3
    else:
        status, code = "passed", 0
    summary = {"date": datetime.date.today().isoformat(), "host": socket.gethostname(),
               "status": status, "exit_code": code, "device": device,
               "no_gpu_reason": (reason or "runner devices lists no GPU") if no_gpu else None,
               "devices": device_lines, "tests": tests, "steps": steps, "checks": checks,
               "figures": figures}
    with open(os.path.join(results, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")
    text = markdown(summary)
    with open(os.path.join(results, "summary.md"), "w") as f:
        f.write(text)
    print(text, end="")
    if failed:
        print("gpu_check: failed: " + ", ".join(s["step"] for s in failed), file=sys.stderr)
    sys.exit(code)


if __name__ == "__main__":
    main()
