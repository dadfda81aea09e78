#!/usr/bin/env python3
"""The runner's own random search with ASHA against Optuna driving `runner run` per trial.

The same search space (learning rate, momentum, batch size of LeNet on Fashion-MNIST), the same
budget (trials, at most max_epochs each, rungs at min_epochs x reduction_factor^k) and the same
validation split, for several search seeds:

- runner: `runner sweep` of a sweep file with sweep.random and sweep.asha (one trial at a time).
- Optuna: RandomSampler(seed) + SuccessiveHalvingPruner(min_resource, reduction_factor); each
  trial is one `runner run` process whose epoch lines are read as they come: the validation
  accuracy is reported to the trial after every epoch, and a pruned trial's process is stopped
  (Ctrl-C) there, so both sides train only the epochs their pruning rule lets through.

Prints a table (best validation accuracy found, its test accuracy, epochs trained, wall time)
and writes it as JSON to OUT/search_vs_optuna.json. Needs Debian's python3-optuna:
    /usr/bin/python3 scripts/search_vs_optuna.py --runner build/runner --out /tmp/search
"""
import argparse
import json
import pathlib
import re
import signal
import statistics
import subprocess
import sys
import time

import optuna

ROOT = pathlib.Path(__file__).resolve().parent.parent
CONFIG = ROOT / "configs" / "lenet_fashion_mnist.yaml"
SPACE = {
    "training.optimizer.lr": ("log_uniform", 1.0e-4, 0.3),
    "training.optimizer.momentum": ("uniform", 0.5, 0.99),
    "training.batch_size": ("choice", [16, 32, 64, 128]),
}
EPOCH_LINE = re.compile(r"^epoch (\d+): .*val accuracy ([0-9.]+) %")
TEST_LINE = re.compile(r"^Accuracy of the network on the \d+ test images: ([0-9.]+) %")


def common_sets(args):
    return [f"dataset.validation_split={args.validation_split}",
            f"dataset.train_limit={args.train_limit}", f"training.threads={args.threads}",
            "checkpoint.path="]


def runner_search(args, seed, out):
    space = "\n".join(
        f"      {path}: {{{kind}: {list(rest[0]) if kind == 'choice' else list(rest)}}}"
        for path, (kind, *rest) in SPACE.items())
    sets = ", ".join(common_sets(args))
    sweep = out / f"runner-seed{seed}.yaml"
    sweep.write_text(
        f"name: runner-seed{seed}\nbase: {CONFIG}\noutput: {out}\nset: [{sets}]\n"
        f"sweep:\n  random:\n    trials: {args.trials}\n    seed: {seed}\n    space:\n{space}\n"
        f"  asha: {{metric: val_accuracy, min_epochs: {args.min_epochs}, "
        f"max_epochs: {args.max_epochs}, reduction_factor: {args.reduction_factor}}}\n")
    start = time.monotonic()
    subprocess.run([args.runner, "sweep", str(sweep), "-q"], check=True,
                   stdout=subprocess.DEVNULL)
    seconds = time.monotonic() - start
    summary = json.loads((out / f"runner-seed{seed}" / "summary.json").read_text())
    best = summary["best"]
    test = next(r["test_accuracy"] for r in summary["points"] if r["id"] == best["id"])
    return {"best_val_accuracy": best["value"], "best_test_accuracy": test,
            "epochs_trained": summary["search"]["asha"]["epochs_trained"],
            "seconds": seconds, "best_values": best["values"]}


def optuna_search(args, seed, out):
    epochs_trained = 0
    tests = {}

    def objective(trial):
        nonlocal epochs_trained
        sets = common_sets(args) + [f"training.epochs={args.max_epochs}",
                                    f"seed={seed * 1000 + trial.number}"]
        for path, (kind, *rest) in SPACE.items():
            if kind == "choice":
                value = trial.suggest_categorical(path, rest[0])
            else:
                value = trial.suggest_float(path, rest[0], rest[1], log=kind == "log_uniform")
            sets.append(f"{path}={value}")
        command = [args.runner, "run", str(CONFIG), "--output", str(out / "optuna-runs")]
        for s in sets:
            command += ["--set", s]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   text=True)
        value = None
        for line in process.stdout:
            if match := EPOCH_LINE.match(line):
                epoch, value = int(match.group(1)), float(match.group(2)) / 100
                epochs_trained += 1
                trial.report(value, epoch)
                if epoch < args.max_epochs and trial.should_prune():
                    process.send_signal(signal.SIGINT)
                    process.communicate()
                    raise optuna.TrialPruned()
            elif match := TEST_LINE.match(line):
                tests[trial.number] = float(match.group(1)) / 100
        if process.wait() != 0 or value is None:
            raise RuntimeError(f"runner run failed: {' '.join(command)}")
        return value

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(
        direction="maximize", sampler=optuna.samplers.RandomSampler(seed=seed),
        pruner=optuna.pruners.SuccessiveHalvingPruner(
            min_resource=args.min_epochs, reduction_factor=args.reduction_factor))
    start = time.monotonic()
    study.optimize(objective, n_trials=args.trials)
    seconds = time.monotonic() - start
    best = study.best_trial
    return {"best_val_accuracy": best.value, "best_test_accuracy": tests.get(best.number),
            "epochs_trained": epochs_trained, "seconds": seconds, "best_values": best.params}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runner", default=str(ROOT / "build" / "runner"))
    parser.add_argument("--out", type=pathlib.Path, required=True)
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument("--trials", type=int, default=27)
    parser.add_argument("--min-epochs", type=int, default=1)
    parser.add_argument("--max-epochs", type=int, default=9)
    parser.add_argument("--reduction-factor", type=int, default=3)
    parser.add_argument("--train-limit", type=int, default=10000)
    parser.add_argument("--validation-split", type=float, default=0.1)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    results = []
    for seed in (int(s) for s in args.seeds.split(",")):
        for name, search in (("runner", runner_search), ("optuna", optuna_search)):
            result = search(args, seed, args.out)
            result.update(method=name, seed=seed)
            results.append(result)
            print(f"{name:7} seed {seed}: best val {100 * result['best_val_accuracy']:.2f} %, "
                  f"test {100 * (result['best_test_accuracy'] or 0):.2f} %, "
                  f"{result['epochs_trained']} epochs, {result['seconds']:.0f} s", flush=True)
    print(f"\n{'method':8} {'best val % (mean, min-max)':>28} {'epochs (mean)':>14} "
          f"{'seconds (mean)':>15}")
    for name in ("runner", "optuna"):
        rows = [r for r in results if r["method"] == name]
        vals = [100 * r["best_val_accuracy"] for r in rows]
        print(f"{name:8} {statistics.mean(vals):>14.2f} ({min(vals):.2f}-{max(vals):.2f})"
              f" {statistics.mean(r['epochs_trained'] for r in rows):>14.1f}"
              f" {statistics.mean(r['seconds'] for r in rows):>15.0f}")
    (args.out / "search_vs_optuna.json").write_text(json.dumps(
        {"settings": {k: str(v) for k, v in vars(args).items()}, "results": results}, indent=2))


if __name__ == "__main__":
    sys.exit(main())
