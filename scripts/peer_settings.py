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


def describe(args):
    """The settings as the peer's JSON line records them."""
    return {"math": args.math, "memory_format": args.memory_format, "precision": args.precision,
            "cudnn_allow_tf32": torch.backends.cudnn.allow_tf32}
