"""The settings both PyTorch peers of the benchmark share (scripts/pytorch_lenet.py and
scripts/pytorch_peer.py bench): the math (TF32 on the GPU or not), the memory format and the
precision, so that the suite can time PyTorch as a user who wants speed runs it, not only in its
default NCHW FP32 layout.

  --math strict|default      strict: TF32 off (cuDNN convolutions and matmuls in true FP32, as
                             the runner's fp32); default: PyTorch as shipped (TF32 convolutions
                             on Ampere and later). Only the GPU has TF32.
  --memory-format nchw|channels_last
                             channels_last: the model and every input batch in NHWC, the layout
                             oneDNN and cuDNN prefer for convolutions.
  --precision fp32|bf16      bf16: the forward pass and the loss under torch.autocast (bfloat16
                             on the peer's device); backward follows autocast's casts, and the
                             optimizer steps the FP32 master weights outside it, as autocast
                             intends."""
import contextlib
import ctypes
import os
import sys

import torch


def add_arguments(parser):
    parser.add_argument("--math", choices=["strict", "default"], default="strict",
                        help="strict: FP32 everywhere, as the runner computes (TF32 off); "
                             "default: PyTorch's defaults as its users run it (TF32 convolutions)")
    parser.add_argument("--memory-format", choices=["nchw", "channels_last"], default="nchw",
                        help="the layout of the model's weights and of the input batches")
    parser.add_argument("--precision", choices=["fp32", "bf16"], default="fp32",
                        help="bf16: forward and loss under torch.autocast(dtype=bfloat16)")


def apply_math(math):
    """TF32 off for `strict`; `default` leaves PyTorch's own defaults as they are."""
    if math == "strict":
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False


def memory_format(args):
    return torch.channels_last if args.memory_format == "channels_last" else torch.contiguous_format


def prepare_model(net, args):
    """The model in the chosen layout (its parameters stay FP32: autocast casts per op)."""
    return net.to(memory_format=memory_format(args))


def prepare_input(batch, args):
    """An NCHW input batch in the chosen layout; anything else (labels, features) unchanged."""
    return batch.contiguous(memory_format=memory_format(args)) if batch.dim() == 4 else batch


def autocast(args, device):
    """The context the forward pass and the loss run in: autocast to bfloat16 on the peer's device
    type ("cpu" or "cuda") for bf16, nothing for fp32."""
    if args.precision == "bf16":
        return torch.autocast(torch.device(device).type, dtype=torch.bfloat16)
    return contextlib.nullcontext()


def blas_library():
    """The BLAS library PyTorch's CPU matrix products (linear layers, im2col convolutions) run on,
    as loaded: Debian's torch links libblas.so.3, which is whichever package provides it, and
    the reference BLAS (libblas3, alone when libopenblas0 is not installed) is many times slower:
    a peer on it is not at its best. Warns on stderr then; returns the library's path."""
    torch.ones(2, 2) @ torch.ones(2, 2)  # a matrix product loads it
    try:  # the library that answers to libblas.so.3's sgemm_, as the loader resolved it
        sgemm = ctypes.cast(ctypes.CDLL("libblas.so.3").sgemm_, ctypes.c_void_p).value
    except (OSError, AttributeError):
        return None
    found = None
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split()
            low, high = (int(x, 16) for x in fields[0].split("-"))
            if low <= sgemm < high and len(fields) >= 6:
                found = os.path.realpath(fields[-1])
                break
    if found and "openblas" not in found and "mkl" not in found and "blis" not in found:
        print(f"warning: PyTorch's matrix products run on the reference BLAS ({found}), many times "
              "slower than OpenBLAS: the peer is not at its best (Debian: apt install "
              "libopenblas0-pthread)", file=sys.stderr)
    return found


def describe(args):
    """The settings as the peer's JSON line records them."""
    return {"math": args.math, "memory_format": args.memory_format, "precision": args.precision,
            "cudnn_allow_tf32": torch.backends.cudnn.allow_tf32, "blas": blas_library()}
