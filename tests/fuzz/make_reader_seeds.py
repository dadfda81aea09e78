#!/usr/bin/env python3
"""Regenerates the seed corpora and dictionaries of safetensors_fuzzer and report_fuzzer
(tests/fuzz/corpus-safetensors, corpus-report, safetensors.dict, report.dict).

Seeds: what the runner writes (BUILD/runner: the checkpoint and report of configs/tiny_synthetic.yaml
trained one epoch, the report of `eval` on that checkpoint, the reports of a two-point benchmark
sweep), and forged files of the kinds the readers refuse (tests/train/safetensors_test.cpp:
tensors given twice, bad shapes, dtypes and offsets; nesting past the readers' bounds).

Usage: tests/fuzz/make_reader_seeds.py [BUILD]  (BUILD: a build with `runner`, default build/).
Seeds above the fuzzers' -max_len (64 KiB) are left out.
"""
import json
import pathlib
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # importing make_seeds leaves no __pycache__ in tests/fuzz
from make_seeds import FUZZ, MAX_LEN, ROOT, schema_words, write_dictionary  # noqa: E402

JSON_SYNTAX = ["{", "}", "[", "]", ",", ":", '"', "null", "true", "false", "-0", "1e308", "1e-400",
               "18446744073709551615", "9223372036854775807", "-9223372036854775808", "\\u0000",
               "\\ud800"]


def run_runner(build, work, *args):
    subprocess.run([str(build / "runner"), *args], cwd=work, check=True, stdout=subprocess.DEVNULL)


def runner_files(build):
    """(checkpoints, reports) the runner writes, by seed name."""
    checkpoints, reports = {}, {}
    with tempfile.TemporaryDirectory() as work:
        work = pathlib.Path(work)
        config = str(ROOT / "configs" / "tiny_synthetic.yaml")
        run_runner(build, work, "run", config, "--quiet", "--output", "runs", "--set",
                   "training.epochs=1", "--set", "checkpoint.path=c.safetensors")
        checkpoint = next((work / "runs").rglob("c.safetensors"))  # in the run's folder
        checkpoints["tiny-synthetic-epoch1"] = checkpoint.read_bytes()
        run_runner(build, work, "eval", "--checkpoint", str(checkpoint), config, "--quiet",
                   "--output", "evals")
        run_runner(build, work, "sweep", config, "--quiet", "--mode", "benchmark", "--steps", "3",
                   "--warmup-steps", "1", "--grid", "training.batch_size=8,16", "--output", "sweeps")
        for folder, name in [("runs", "train"), ("evals", "eval"), ("sweeps", "sweep-point")]:
            for i, report in enumerate(sorted((work / folder).rglob("report.json"))):
                reports[f"tiny-synthetic-{name}-{i}"] = report.read_bytes()
        # The target also reads its input as a sweep's plan (sweep.json): a grid's and a search's.
        search = work / "search.yaml"
        search.write_text(f"name: search\nbase: {config}\nsweep:\n  random:\n    trials: 2\n"
                          "    space: {training.optimizer.lr: {log_uniform: [1.0e-4, 0.1]}}\n")
        run_runner(build, work, "sweep", str(search), "--quiet", "--dry-run", "--output", "sweeps")
        for i, plan in enumerate(sorted((work / "sweeps").rglob("sweep.json"))):
            reports[f"tiny-synthetic-sweep-plan-{i}"] = plan.read_bytes()
    return checkpoints, reports


def safetensors(header, data_bytes=0, length=None):
    """A safetensors file: the header's length (8 bytes, little-endian), the header, zero bytes."""
    header = header.encode()
    return struct.pack("<Q", len(header) if length is None else length) + header + bytes(data_bytes)


def nested(levels, inner="{}"):
    return '{"a": ' * levels + inner + "}" * levels


def forged_checkpoints():
    w = '"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}'
    return {
        "forged-f32-i64-metadata": safetensors(
            '{"__metadata__": {"epochs_done": "1"}, ' + w +
            ', "n": {"dtype": "I64", "shape": [], "data_offsets": [8, 16]}, '
            '"e": {"dtype": "F32", "shape": [0], "data_offsets": [16, 16]}}', 16),
        "forged-duplicate-name": safetensors("{" + w + ", " + w + "}", 8),
        "forged-fractional-shape": safetensors(
            '{"w": {"dtype": "F32", "shape": [2.5], "data_offsets": [0, 8]}}', 8),
        "forged-negative-shape": safetensors(
            '{"w": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}}', 8),
        "forged-shape-overflow": safetensors(
            '{"w": {"dtype": "F32", "shape": [4294967296, 4294967296, 16], "data_offsets": [0, 8]}}',
            8),
        "forged-dtype-f16": safetensors(
            '{"w": {"dtype": "F16", "shape": [2], "data_offsets": [0, 4]}}', 4),
        "forged-metadata-number": safetensors('{"__metadata__": {"epochs_done": 3}, ' + w + "}", 8),
        "forged-offsets-overlap": safetensors(
            "{" + w + ', "v": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}', 12),
        "forged-gap-after-tensors": safetensors("{" + w + "}", 16),
        "forged-header-not-object": safetensors("[1, 2]"),
        "forged-header-nested": safetensors(nested(8)),
        "forged-length-beyond-file": safetensors("{}", length=2**64 - 1),
        "forged-too-short": b"\x02\x00\x00",
    }


def forged_reports():
    """Small reports holding the fields the lenient readers (sweeps, summaries) look at, for the
    fuzzer to change one at a time (a real report is 10 KB). The point hash is the one
    report_path.cpp plans, so that a completed one is "complete"."""
    point = {"id": "batch_size=8__seed=1", "index": 0, "values": {"batch_size": 8, "seed": 1},
             "point_sha256": "0" * 64}
    train = {
        "status": "completed", "mode": "train", "name": "n", "device": "cpu", "seed": 1,
        "sweep_point": point, "config": {"training": {"batch_size": 8, "epochs": 1}},
        "epochs": [{"epoch": 1, "train_loss": 2.3, "test_loss": 2.2}],
        "step_time": {"images_per_second": 100.5}, "model": {"flops_per_image": 1000},
        "machine_load": {"cores": 2, "load_average_start": 1, "load_average_end": 3},
        "environment": {"hostname": "h", "cpu_model": "c", "git_commit": "abc", "git_dirty": True},
        "curves": {"train": [{"step": 1, "epoch": 1, "loss": 2.3}]},
        "started_at": "2026-01-01T00:00:00+0000"}
    benchmark = {"status": "completed", "mode": "benchmark", "device": "cuda:0",
                 "benchmark": {"mean_loss": 2.3}, "step_time": {"images_per_second": 400},
                 "sweep_point": {"id": "device=cuda", "values": {"device": "cuda:0"}},
                 "gpu": {"utilisation": {"mean_gpu_percent": 50}}}
    return {
        "forged-status-only": b'{"status": "completed"}',
        "forged-train-point": json.dumps(train).encode(),
        "forged-benchmark-point": json.dumps(benchmark).encode(),
        "forged-diverged-point": json.dumps({**train, "status": "diverged"}).encode(),
        "forged-nested-65": nested(65).encode(),  # just past the readers' bound of 64 levels
        "forged-nested-1000": ('{"tags": ' + nested(1000) + "}").encode(),
        "forged-not-an-object": b"[1, 2, 3]",
    }


def cache_seeds():
    """The image caches as tests/fuzz/cache_path.cpp reads its input: a decoded cache's counts
    (image count, skipped bytes) and then its body for the fixed key there (3 files of 3x2x2 images,
    fingerprint "f" * 64), whole with its checksum, so that mutations reach every check; and the
    lines of a hash cache."""
    import hashlib

    def sha(data):
        return hashlib.sha256(data).hexdigest().encode()

    pixels, labels = bytes(range(12)), struct.pack("<i", 0)
    skipped = b"".join(struct.pack("<I", len(text)) + text
                       for text in [b"b.png", b"b.png: not an image", b"c.png", b"c.png: empty"])
    counts = struct.pack("<QQ", 1, len(skipped))
    header = (b"runner images 1\n" + struct.pack("<IIII", 3, 2, 2, 1) + counts + b"f" * 64)
    checksum = sha(header + sha(pixels) + sha(labels) + sha(skipped))
    hashes = b"".join(b"%s %d 1700000000000000000 %s\n" % (b"0" * 64, size, name)
                      for size, name in [(12, b"images/a.png"), (7, b"with space.png")])
    return {"cache-decoded-whole": counts + pixels + labels + skipped + checksum,
            "cache-hash-lines": hashes}


def write_corpus(name, seeds):
    corpus = FUZZ / f"corpus-{name}"
    corpus.mkdir(exist_ok=True)
    for old in corpus.iterdir():
        old.unlink()
    kept = {seed: content for seed, content in seeds.items() if len(content) <= MAX_LEN}
    for seed, content in kept.items():
        (corpus / seed).write_bytes(content)
    print(f"{len(kept)} seeds in {corpus.relative_to(ROOT)}")


def main():
    build = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "build").resolve()
    checkpoints, reports = runner_files(build)
    write_corpus("safetensors", {**checkpoints, **forged_checkpoints()})
    write_corpus("report", {**reports, **forged_reports(), **cache_seeds()})
    write_dictionary("safetensors.dict",
                     ['"__metadata__"', '"dtype"', '"shape"', '"data_offsets"', '"F32"', '"I64"',
                      '"F16"', "\x00\x00\x00\x00\x00\x00\x00\x00"] + JSON_SYNTAX,
                     "a safetensors header's keys and dtypes, JSON's syntax")
    keys, values = schema_words("report.schema.json")
    write_dictionary("report.dict", [f'"{k}": ' for k in keys] + [f'"{v}"' for v in values] +
                     JSON_SYNTAX, "the report schema's keys and values, JSON's syntax")


if __name__ == "__main__":
    main()
