#!/usr/bin/env python3
"""Reads a runner checkpoint (safetensors) with numpy and torch only: no `safetensors` package,
which Debian does not ship.

As a module (scripts/ on sys.path):
    from load_checkpoint import load_file, load_model_state
    state = load_model_state("cifar_net.safetensors")   # parameters and buffers, no optimizer.*
    net.load_state_dict(state)

As a command, it lists the tensors and the metadata:
    /usr/bin/python3 scripts/load_checkpoint.py CHECKPOINT
"""
import json
import struct
import sys

import numpy as np

DTYPES = {"F32": np.float32, "I64": np.int64}


def read_safetensors_numpy(path):
    """(tensors as numpy arrays by name, the __metadata__ dict). The plain format: a u64
    header length, a JSON header, raw little-endian tensors."""
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        dtype = np.dtype(DTYPES[entry["dtype"]]).newbyteorder("<")
        values = np.frombuffer(data[8 + n + begin:8 + n + end], dtype=dtype)
        tensors[name] = values.reshape(entry["shape"]).astype(dtype.newbyteorder("="))
    return tensors, header.get("__metadata__", {})


def load_file(path):
    """As safetensors.torch.load_file: torch tensors by name."""
    import torch

    tensors, _ = read_safetensors_numpy(path)
    return {name: torch.from_numpy(values) for name, values in tensors.items()}


def load_model_state(path):
    """The model's state_dict: every tensor but the optimizer's."""
    return {k: v for k, v in load_file(path).items() if not k.startswith("optimizer.")}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    tensors, metadata = read_safetensors_numpy(sys.argv[1])
    for name, values in tensors.items():
        print(f"{name} {values.dtype} {list(values.shape)}")
    for key in sorted(metadata):
        if key != "config":  # the whole resolved config: long, and in the report too
            print(f"metadata {key}: {metadata[key]}")


if __name__ == "__main__":
    main()
