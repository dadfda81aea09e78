#!/usr/bin/env python3
"""The PyTorch peer of a runner config: the same layer graph as an nn.Module (state_dict keys
are the runner's tensor names), the same recipe (optimizer, warm-up and schedule, label
smoothing, augmentation, normalisation) on the same files.

  pytorch_peer.py train CONFIG [--seed N] [--epochs N] [--train-limit N] [--threads N]
      trains and prints one JSON line: test accuracy, images/s, seconds.
  pytorch_peer.py evaluate CONFIG CHECKPOINT
      loads a runner checkpoint (read as plain safetensors, buffers included) and prints
      the test accuracy and loss as JSON.
  pytorch_peer.py bench CONFIG [--batch-size N] [--steps N] [--warmup-steps N] [--threads N]
                   [--memory-format nchw|channels_last] [--precision fp32|bf16]
      times training steps as `runner bench` does and prints one JSON line (images/s from the
      median step, step-time percentiles, mean loss, peak memory).

train and bench take --math, --memory-format and --precision as peer_settings.py describes them
(channels_last: model and batches in NHWC; bf16: forward and loss under torch.autocast).

Needs torch, numpy and yaml (Debian: python3-torch python3-yaml; run with /usr/bin/python3); a
JSON config (a report's resolved config) needs no yaml."""
import argparse
import gzip
import json
import math
import os
import resource
import struct
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

try:
    import yaml
except ImportError:  # a Python without PyYAML reads JSON configs (a report's resolved config)
    yaml = None

from load_checkpoint import load_model_state  # scripts/: the plain safetensors reader
import peer_settings  # scripts/: memory format, precision and math, shared with pytorch_lenet.py
import peer_tokens  # scripts/: token sequences and attention, as timm's VisionTransformer
from peer_tokens import Tokens


# ---- data -------------------------------------------------------------------------------------

def read_idx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    dims = data[3]
    shape = struct.unpack(">" + "I" * dims, data[4:4 + 4 * dims])
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def find(root, stem):
    for name in (stem, stem + ".gz"):
        if os.path.exists(os.path.join(root, name)):
            return os.path.join(root, name)
    raise SystemExit(f"{root}: no {stem}[.gz]")


# dataset.root when the config gives none, as runner/config/resolve_experiment.cpp has them.
DEFAULT_ROOTS = {"cifar10": "data/cifar-10-batches-bin", "cifar100": "data/cifar-100-binary",
                 "fashion_mnist": "/usr/share/datasets/fashion-mnist", "mnist": "data/mnist"}


def load_split(dataset, train):
    """The split as the runner reads it: dataset.root is the folder holding the files themselves
    (CIFAR-10's data_batch_1.bin .. data_batch_5.bin and test_batch.bin; CIFAR-100's train.bin
    and test.bin, records of a coarse then a fine label byte; the IDX files, plain or .gz), a
    relative root taken from the working folder."""
    name = dataset["name"]
    root = dataset.get("root", DEFAULT_ROOTS.get(name, ""))
    if name in ("fashion_mnist", "mnist"):
        prefix = "train" if train else "t10k"
        images = read_idx(find(root, f"{prefix}-images-idx3-ubyte"))[:, None, :, :]
        labels = read_idx(find(root, f"{prefix}-labels-idx1-ubyte"))
    elif name in ("cifar10", "cifar100"):
        if name == "cifar10":
            files = [f"data_batch_{i}.bin" for i in range(1, 6)] if train else ["test_batch.bin"]
            label_bytes, label_byte = 1, 0
        else:
            files = ["train.bin" if train else "test.bin"]
            label_bytes, label_byte = 2, (0 if dataset.get("label", "fine") == "coarse" else 1)
        for f in files:
            if not os.path.isfile(os.path.join(root, f)):
                raise SystemExit(f"{os.path.join(root, f)}: not found; dataset.root is the folder "
                                 f"holding the {name} binary files")
        raw = np.concatenate([np.fromfile(os.path.join(root, f), dtype=np.uint8) for f in files])
        raw = raw.reshape(-1, label_bytes + 3072)
        images = raw[:, label_bytes:].reshape(-1, 3, 32, 32)
        labels = raw[:, label_byte]
    elif name == "synthetic":
        images, labels = synthetic_split(dataset.get("synthetic", {}), train)
    elif name == "image_folder":
        images, labels = image_folder_split(dataset, root, train)
    else:
        raise SystemExit(f"dataset {name}: not supported by this script")
    limit = dataset.get("train_limit" if train else "test_limit", 0)
    if isinstance(images, Photos):
        photos = Photos(images.images[:limit] if limit else images.images, images.size)
        return photos, torch.from_numpy(labels[:len(photos)].astype(np.int64))
    if limit:
        images, labels = images[:limit], labels[:limit]
    return torch.from_numpy(images.copy()), torch.from_numpy(labels.astype(np.int64))


def image_folder_split(dataset, root, train):
    """torchvision's ImageFolder on the split's folder, with the runner's preprocessing:
    convert('RGB') or ('L'), then Resize(image_size) (bilinear, antialiased), as uint8; the test
    split through dataset.eval_transform's Resize and CenterCrop first. With dataset.decode:
    per_epoch the training split stays full-size photos (Photos), fitted when a batch is made."""
    from torchvision import datasets, transforms as T
    size = dataset["image_size"]
    size = [size, size] if isinstance(size, int) else size
    mode = "L" if dataset.get("channels", 3) == 1 else "RGB"
    folder = dataset.get("train", "train") if train else dataset.get("test", "test")
    folder = folder if os.path.isabs(folder) else os.path.join(root, folder)
    steps = [T.Lambda(lambda image: image.convert(mode))]
    if train and dataset.get("decode", "once") == "per_epoch":
        split = datasets.ImageFolder(folder, transform=T.Compose(steps))
        return Photos([split[i][0] for i in range(len(split))], size), np.asarray(split.targets)
    if not train:
        for step in dataset.get("eval_transform", []):
            (kind, opts), = step.items()
            fit = opts["size"]
            steps.append(T.Resize(fit if isinstance(fit, int) else tuple(fit),
                                  interpolation=T.InterpolationMode.BILINEAR)
                         if kind == "resize" else T.CenterCrop(tuple(fit)))
    steps += [T.Resize(size, interpolation=T.InterpolationMode.BILINEAR), T.PILToTensor()]
    split = datasets.ImageFolder(folder, transform=T.Compose(steps))
    images = np.stack([np.asarray(split[i][0]) for i in range(len(split))])
    return images, np.asarray(split.targets)


class Photos:
    """A training split decoded per epoch, as the runner's loader makes its batches: indexing
    by rows gives the full-size PIL images, which augment() fits to image_size (a first
    random_resized_crop crops the photo, otherwise Resize(image_size) first)."""

    def __init__(self, images, size):
        self.images, self.size = images, size

    def __len__(self):
        return len(self.images)

    def __getitem__(self, rows):
        return PhotoBatch([self.images[i] for i in rows.tolist()], self.size)


class PhotoBatch(list):
    def __init__(self, images, size):
        super().__init__(images)
        self.size = size


def fit_photos(photos, steps):
    """The runner's per_epoch rule: a first random_resized_crop gets the photo at full size,
    otherwise each photo is resized to image_size before the steps. Returns the uint8 batch and
    the steps left."""
    import torchvision.transforms.functional as TF
    from torchvision import transforms as T
    first = next(iter(steps[0])) if steps else None
    if first == "random_resized_crop":
        fit, steps = recipe_transform(first, steps[0][first]), steps[1:]
    elif first in ("resize", "center_crop"):
        raise SystemExit(f"pytorch_peer.py: a first {first} step with decode: per_epoch is not "
                         "implemented here")
    else:
        fit = T.Resize(photos.size, interpolation=T.InterpolationMode.BILINEAR)
    return torch.stack([TF.pil_to_tensor(fit(photo)) for photo in photos]), steps


def synthetic_split(spec, train):
    """The runner's synthetic images, rebuilt byte for byte by synthetic_data.py."""
    import subprocess
    import tempfile
    c, h, w = spec.get("channels", 3), spec.get("height", 32), spec.get("width", 32)
    classes = spec.get("classes", 10)
    n_train, n_test = spec.get("train_count", 1024), spec.get("test_count", 256)
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "synthetic_data.py")
    with tempfile.NamedTemporaryFile() as out:
        subprocess.run([sys.executable, script, str(c), str(h), str(w), str(classes),
                        str(n_train), str(n_test), out.name], check=True)
        data = np.fromfile(out.name, dtype=np.uint8)
    size = c * h * w
    parts = [n_train * size, n_train * 4, n_test * size, n_test * 4]
    offsets = np.cumsum([0] + parts)
    k = 0 if train else 2
    images = data[offsets[k]:offsets[k + 1]].reshape(-1, c, h, w)
    labels = data[offsets[k + 1]:offsets[k + 2]].view(np.int32)
    return images, labels


def normalise(images, dataset):
    norm = dataset.get("normalize", {"mean": [0.5], "std": [0.5]})
    c = images.shape[1]
    mean = torch.tensor((norm["mean"] * c)[:c]).view(1, c, 1, 1)
    std = torch.tensor((norm["std"] * c)[:c]).view(1, c, 1, 1)
    return (images.float() / 255.0 - mean) / std


def recipe_transform(kind, opts):
    """torchvision's transform for one of the runner's value-changing steps (the resolved
    config writes every setting out), on PIL images as its reference recipes apply them."""
    from torchvision import transforms as T  # only these steps need torchvision
    setting = lambda v: None if v == 0 else (tuple(v) if isinstance(v, list) else v)
    fill = opts.get("fill", 0)
    fill = fill if isinstance(fill, int) else tuple(fill)
    if kind == "random_resized_crop":
        return T.RandomResizedCrop(tuple(opts["size"]), scale=tuple(opts["scale"]),
                                   ratio=tuple(opts["ratio"]))
    if kind == "color_jitter":
        jitter = T.ColorJitter(*(setting(opts.get(k, 0)) or 0 for k in
                                 ("brightness", "contrast", "saturation")),
                               hue=setting(opts.get("hue", 0)) or 0)
        return T.RandomApply([jitter], p=opts.get("p", 1.0))
    if kind == "random_grayscale":
        return T.RandomGrayscale(opts.get("p", 0.1))
    if kind == "random_rotation":
        return T.RandomRotation(setting(opts["degrees"]) or 0, fill=fill)
    if kind == "random_affine":
        shear = opts.get("shear")
        return T.RandomAffine(setting(opts.get("degrees", 0)) or 0,
                              translate=tuple(opts["translate"]) if "translate" in opts else None,
                              scale=tuple(opts["scale"]) if "scale" in opts else None,
                              shear=tuple(shear) if isinstance(shear, list) else shear, fill=fill)
    if kind == "gaussian_blur":
        blur = T.GaussianBlur(opts["kernel_size"], tuple(opts.get("sigma", [0.1, 2.0])))
        return T.RandomApply([blur], p=opts.get("p", 1.0))
    if kind == "trivial_augment_wide":
        return T.TrivialAugmentWide(opts.get("num_magnitude_bins", 31), fill=[fill] if
                                    isinstance(fill, int) else list(fill))
    if kind == "rand_augment":
        return T.RandAugment(opts.get("num_ops", 2), opts.get("magnitude", 9),
                             opts.get("num_magnitude_bins", 31),
                             fill=[fill] if isinstance(fill, int) else list(fill))
    raise SystemExit(f"pytorch_peer.py: dataset.augment step {kind} is not implemented here")


def augment(batch, steps, generator):
    """torchvision's RandomCrop(size, padding), RandomHorizontalFlip(p) and RandomVerticalFlip(p)
    on uint8 batches (drawn from `generator`); the recipe steps image by image on PIL images, as
    torchvision's reference recipes apply them (drawn from torch's global generator).
    random_erasing is left to erase(), after normalisation. A PhotoBatch (decode: per_epoch) is
    fitted to image_size first."""
    if isinstance(batch, PhotoBatch):
        batch, steps = fit_photos(batch, steps)
    for step in steps:
        (kind, opts), = step.items()
        opts = opts or {}
        if kind == "random_crop":
            pad = opts.get("padding", 0)
            n, _, h, w = batch.shape
            padded = F.pad(batch, (pad, pad, pad, pad))
            ys = torch.randint(0, 2 * pad + 1, (n,), generator=generator)
            xs = torch.randint(0, 2 * pad + 1, (n,), generator=generator)
            batch = torch.stack([padded[i, :, ys[i]:ys[i] + h, xs[i]:xs[i] + w] for i in range(n)])
        elif kind == "horizontal_flip":
            flip = torch.rand(batch.shape[0], generator=generator) < opts.get("p", 0.5)
            batch = torch.where(flip.view(-1, 1, 1, 1), batch.flip(3), batch)
        elif kind == "vertical_flip":
            flip = torch.rand(batch.shape[0], generator=generator) < opts.get("p", 0.5)
            batch = torch.where(flip.view(-1, 1, 1, 1), batch.flip(2), batch)
        elif kind == "random_erasing":
            if step is not steps[-1]:
                raise SystemExit("pytorch_peer.py: random_erasing must be the last step (it "
                                 "erases the normalised batch)")
        else:
            import torchvision.transforms.functional as TF
            transform = recipe_transform(kind, opts)
            batch = torch.stack([TF.pil_to_tensor(transform(TF.to_pil_image(image)))
                                 for image in batch])
    return batch


def erase(x, steps):
    """torchvision's RandomErasing(p, scale, ratio, value) on each normalised image."""
    for step in steps:
        (kind, opts), = step.items()
        if kind != "random_erasing":
            continue
        from torchvision import transforms
        value = opts.get("value", 0)
        eraser = transforms.RandomErasing(opts.get("p", 0.5), tuple(opts.get("scale", [0.02, 0.33])),
                                          tuple(opts.get("ratio", [0.3, 3.3])), value=value)
        x = torch.stack([eraser(image) for image in x])
    return x


def mix_batch(x, labels, training, rng, classes):
    """timm's Mixup (mode 'batch', correct_lam) with SoftTargetCrossEntropy's targets: mixup or
    cutmix of the batch with itself reversed, each label smoothed by training.label_smoothing.
    Returns the (maybe mixed) batch and its soft targets, or the labels when nothing is set."""
    mixup = training.get("mixup", {}).get("alpha", 0)
    cutmix = training.get("cutmix", {}).get("alpha", 0)
    if not mixup and not cutmix:
        return x, labels
    mix = training.get("mix", {})
    lam, use_cutmix = 1.0, False
    if rng.random() < mix.get("prob", 1.0):
        if mixup and cutmix:
            use_cutmix = rng.random() < mix.get("switch_prob", 0.5)
            lam = rng.beta(cutmix, cutmix) if use_cutmix else rng.beta(mixup, mixup)
        elif mixup:
            lam = rng.beta(mixup, mixup)
        else:
            use_cutmix, lam = True, rng.beta(cutmix, cutmix)
    if lam != 1.0:
        if use_cutmix:
            h, w = x.shape[2], x.shape[3]
            ratio = np.sqrt(1 - lam)
            cut_h, cut_w = int(h * ratio), int(w * ratio)
            cy, cx = rng.integers(0, h), rng.integers(0, w)
            yl, yh = np.clip(cy - cut_h // 2, 0, h), np.clip(cy + cut_h // 2, 0, h)
            xl, xh = np.clip(cx - cut_w // 2, 0, w), np.clip(cx + cut_w // 2, 0, w)
            x = x.clone()
            x[:, :, yl:yh, xl:xh] = x.flip(0)[:, :, yl:yh, xl:xh]
            lam = 1 - (yh - yl) * (xh - xl) / float(h * w)
        else:
            x = x * lam + x.flip(0) * (1 - lam)
    smoothing = training.get("label_smoothing", 0.0)
    off = smoothing / classes
    one_hot = F.one_hot(labels.long(), classes).float() * (1 - smoothing) + off
    return x, one_hot * lam + one_hot.flip(0) * (1 - lam)


class WeightAverage:
    """training.ema as timm's ModelEmaV2 with the runner's cadence: every `every` steps the
    parameters and buffers move (1 - decay) of the way to the weights; the first update copies."""

    def __init__(self, net, spec):
        self.decay, self.every = spec.get("decay", 0.9998), spec.get("every", 1)
        self.average = None

    def after_step(self, net, step):
        if step % self.every:
            return
        state = {k: v.detach().clone().float() for k, v in net.state_dict().items()}
        if self.average is None:
            self.average = state
            return
        for k, v in state.items():
            if v.is_floating_point():
                self.average[k].mul_(self.decay).add_(v, alpha=1 - self.decay)
            else:
                self.average[k] = v

    def evaluated(self, net, evaluate):
        saved = {k: v.detach().clone() for k, v in net.state_dict().items()}
        net.load_state_dict(self.average)
        try:
            return evaluate()
        finally:
            net.load_state_dict(saved)


# ---- model ------------------------------------------------------------------------------------

def pair(value, default):
    if value is None:
        return (default, default)
    return tuple(value) if isinstance(value, list) else (value, value)


def runner_described(config_file):
    """`runner describe --json CONFIG`: the runner's resolved config and its plain layers ($RUNNER,
    else build/runner beside scripts/)."""
    import subprocess
    runner = os.environ.get("RUNNER") or os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                      "..", "build", "runner")
    described = subprocess.run([runner, "describe", "--json", config_file], capture_output=True,
                               text=True)
    if described.returncode != 0:
        sys.exit(f"{config_file}: runner describe --json failed: {described.stderr.strip()}")
    return json.loads(described.stdout)


def read_config(config_file):
    """The config with model.plain_layers, its layers as the runner builds them. A config this
    script cannot read alone (composed with `defaults:`, tagged `!replace`, written with blocks,
    or with augmentation or evaluation steps, whose defaults such as a crop's size are the
    runner's) is read by the runner itself, so expansion, composition and defaults are its own."""
    with open(config_file) as f:
        text = f.read()
    try:
        config = yaml.safe_load(text) if yaml else json.loads(text)
    except Exception:  # YAML tags (!replace) or YAML without PyYAML: the runner reads it
        config = None
    if (not isinstance(config, dict) or "defaults" in config or "include" in config
            or "blocks" in config.get("model", {})
            or {"augment", "eval_transform"} & set(config.get("dataset", {}))):
        described = runner_described(config_file)
        config = described["config"]
        config["model"]["plain_layers"] = described["layers"]
    else:
        config["model"]["plain_layers"] = config["model"]["layers"]
    return config


class Scale(nn.Module):
    """The runner's `scale`: a learned factor per channel (or per feature of a flat input), ConvNeXt's
    layer scale; its parameter is `weight`, as the runner's checkpoint names it."""

    def __init__(self, channels, init_value):
        super().__init__()
        self.weight = nn.Parameter(torch.full((channels,), float(init_value)))

    def forward(self, x):
        if x.dim() == 3:  # tokens (N, T, C): one factor per feature
            return x * self.weight
        return x * self.weight.view(-1, *([1] * (x.dim() - 2)))


class ReLU6(nn.Module):
    """min(max(x, 0), 6) as clamp: PyTorch 1.13 has no bf16 CPU kernel for nn.ReLU6's backward
    (hardtanh's), so bf16 autocast would fail on MobileNetV2; clamp's backward has one."""

    def forward(self, x):
        return x.clamp(0, 6)


def mul(x, gate):
    """The runner's `mul`: x times a gate of its shape or of one value per channel (Cx1x1, or a
    flat C that multiplies every position of its channel)."""
    if gate.dim() == 2 and x.dim() == 4:
        gate = gate[:, :, None, None]
    return x * gate


class ChannelLayerNorm(nn.LayerNorm):
    """layer_norm: nn.LayerNorm over the channels at each position of an image (ConvNeXt's
    channels_first LayerNorm), over the features of a flat input or of each token; parameters
    named as its own."""

    def forward(self, x):
        if x.dim() != 4:
            return super().forward(x)
        return super().forward(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)


class GraphNet(nn.Module):
    """A runner `model.layers` list as a module; each layer an attribute under its own name, a
    dotted name (a block's layer: layer2.0.conv1) nested as PyTorch nests modules, so that the
    state_dict keys are the runner's tensor names."""

    def __init__(self, layers, input_shape, width=1.0):
        super().__init__()
        self.plan = []
        shapes, previous = {}, None
        for i, spec in enumerate(layers):
            name, kind = spec["name"], spec["type"]
            inputs = spec.get("inputs", [previous] if previous else ["input"])
            shape = input_shape if inputs[0] in (None, "input") else shapes[inputs[0]]
            scale = 1.0 if i == len(layers) - 1 else width
            module, shape = self.make(kind, spec, shape, scale, [shapes.get(x) for x in inputs])
            if module is not None:
                self.add_nested(name, module)
            self.plan.append((name, kind, inputs, spec))
            shapes[name], previous = shape, name

    def add_nested(self, name, module):
        *path, leaf = name.split(".")
        parent = self
        for part in path:
            if part not in parent._modules:
                parent.add_module(part, nn.Module())
            parent = parent._modules[part]
        if isinstance(module, nn.Parameter):  # a class token or position embedding: bare
            parent.register_parameter(leaf, module)
        else:
            parent.add_module(leaf, module)

    def layer(self, name):
        return self.get_submodule(name)

    @staticmethod
    def make(kind, s, shape, width, input_shapes):
        c = shape[0]
        if kind == "conv2d":
            out = max(1, round(s["out_channels"] * width))
            k, st, p = pair(s["kernel"], 1), pair(s.get("stride"), 1), pair(s.get("padding"), 0)
            d, g = pair(s.get("dilation"), 1), s.get("groups", 1)
            g = c if g == "depthwise" else g
            m = nn.Conv2d(c, out, k, st, p, d, g, bias=s.get("bias", True))
            h = (shape[1] + 2 * p[0] - d[0] * (k[0] - 1) - 1) // st[0] + 1
            w = (shape[2] + 2 * p[1] - d[1] * (k[1] - 1) - 1) // st[1] + 1
            return m, (out, h, w)
        if kind in ("max_pool2d", "avg_pool2d"):
            k = pair(s["kernel"], 1)
            st, p = pair(s.get("stride"), None), pair(s.get("padding"), 0)
            st = k if st == (None, None) else st
            cls = nn.MaxPool2d if kind == "max_pool2d" else nn.AvgPool2d
            h = (shape[1] + 2 * p[0] - k[0]) // st[0] + 1
            w = (shape[2] + 2 * p[1] - k[1]) // st[1] + 1
            return cls(k, st, p), (c, h, w)
        if kind == "global_avg_pool2d":
            return nn.AdaptiveAvgPool2d(1), ((c,) if s.get("flatten") else (c, 1, 1))
        if kind == "batch_norm2d":
            return nn.BatchNorm2d(c, s.get("eps", 1e-5), s.get("momentum", 0.1),
                                  s.get("affine", True)), shape
        if kind == "layer_norm":
            return ChannelLayerNorm(c, s.get("eps", 1e-5), s.get("affine", True)), shape
        if kind == "group_norm":
            return nn.GroupNorm(s["groups"], c, s.get("eps", 1e-5), s.get("affine", True)), shape
        if kind == "dropout":
            return nn.Dropout(s.get("p", 0.5)), shape
        if kind == "linear":
            out = max(1, round(s["out_features"] * width))
            tokens = isinstance(shape, Tokens)
            return (nn.Linear(c, out, bias=s.get("bias", True)),
                    Tokens(out, shape.t) if tokens else (out,))
        if kind == "to_tokens":
            return None, Tokens(c, shape[1] * shape[2])
        if kind in peer_tokens.EMBEDDINGS:
            return peer_tokens.embedding(kind, shape)
        if kind == "token_select":
            return None, (c,)
        if kind == "self_attention":
            return peer_tokens.Attention(c, s["heads"], s.get("dropout", 0.0),
                                         s.get("bias", True)), shape
        if kind == "drop_path":
            return peer_tokens.DropPath(s["p"]), shape
        if kind == "flatten":
            return None, (int(np.prod(shape)),)
        if kind == "concat":
            return None, (sum(x[0] for x in input_shapes),) + tuple(shape[1:])
        if kind == "scale":
            return Scale(c, s.get("init_value", 1e-6)), shape
        activations = {"relu": nn.ReLU(), "gelu": nn.GELU(s.get("approximate", "none")),
                       "sigmoid": nn.Sigmoid(), "tanh": nn.Tanh(), "silu": nn.SiLU(),
                       "relu6": ReLU6(), "hardswish": nn.Hardswish(),
                       "hardsigmoid": nn.Hardsigmoid(), "add": None, "mul": None}
        if kind == "leaky_relu":
            return nn.LeakyReLU(s.get("negative_slope", 0.01)), shape
        if kind in activations:
            return activations[kind], shape
        raise SystemExit(f"layer type {kind}: not supported by this script")

    def forward(self, x):
        values = {"input": x}
        last = x
        for name, kind, inputs, spec in self.plan:
            args = [values[i] for i in inputs]
            if kind == "add":
                last = sum(args[1:], args[0])
            elif kind == "concat":
                last = torch.cat(args, 1)
            elif kind == "mul":
                last = mul(*args)
            elif kind == "to_tokens":
                last = peer_tokens.to_tokens(args[0])
            elif kind in peer_tokens.EMBEDDINGS:
                last = peer_tokens.apply_embedding(kind, self.get_parameter(name), args[0])
            elif kind == "token_select":
                last = peer_tokens.select(spec, args[0])
            elif kind == "flatten" or (kind == "global_avg_pool2d" and spec.get("flatten")):
                last = torch.flatten(self.layer(name)(args[0]) if kind != "flatten" else args[0], 1)
            else:
                last = self.layer(name)(args[0])
            values[name] = last
        return last


def initialise(net, model):
    """model.init / layer init: kaiming_normal (fan_out, relu) for conv and linear weights."""
    default = model.get("init", "default")
    for name, kind, _, spec in net.plan:
        if spec.get("init", default) != "kaiming_normal":
            continue
        weighted = {"conv2d": [""], "linear": [""], "self_attention": [".qkv", ".proj"]}
        for module in (net.layer(name + part) for part in weighted.get(kind, [])):
            nn.init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu")


# ---- recipe -----------------------------------------------------------------------------------

def optimizer_for(net, spec):
    """The config's optimizer with the runner's defaults for the keys it leaves out."""
    kind = spec.get("type", "sgd")
    decay = spec.get("weight_decay", 0.01 if kind == "adamw" else 0.0)
    exclude = set(spec.get("weight_decay_exclude", []))
    # `norm`: normalisation layers' parameters and scale's (timm leaves every 1-D one undecayed);
    # `embedding`: class tokens and position embeddings, named as their layers (no_weight_decay)
    norms = {n for n, k, _, _ in net.plan if k in ("batch_norm2d", "layer_norm", "group_norm", "scale")}
    embeddings = {n for n, k, _, _ in net.plan if k in peer_tokens.EMBEDDINGS}
    plain, excluded = [], []
    for name, p in net.named_parameters():
        layer, _, field = name.rpartition(".")
        skip = (("bias" in exclude and field == "bias") or ("norm" in exclude and layer in norms)
                or ("embedding" in exclude and name in embeddings))
        (excluded if skip else plain).append(p)
    groups = [{"params": plain, "weight_decay": decay}, {"params": excluded, "weight_decay": 0}]
    lr = spec.get("lr", 0.001)  # the runner's default for every optimizer (OptimizerSpec)
    if kind == "sgd":
        return torch.optim.SGD(groups, lr=lr, momentum=spec.get("momentum", 0),
                               dampening=spec.get("dampening", 0),
                               nesterov=spec.get("nesterov", False))
    cls = torch.optim.Adam if kind == "adam" else torch.optim.AdamW
    return cls(groups, lr=lr, betas=(spec.get("beta1", 0.9), spec.get("beta2", 0.999)),
               eps=spec.get("eps", 1e-8))


def one_cycle(schedule, step, total_steps, start, turn, end):
    """OneCycleLR's two cosine phases (three_phase False): start -> turn until step
    pct_start * T - 1, then turn -> end at step T - 1."""
    def anneal(a, b, pct):
        return b + (a - b) / 2.0 * (math.cos(math.pi * pct) + 1)
    rise_end = schedule.get("pct_start", 0.3) * total_steps - 1
    if step <= rise_end:
        return anneal(start, turn, step / rise_end) if rise_end > 0 else start
    return anneal(turn, end, (step - rise_end) / (total_steps - 1 - rise_end))


def scheduled_momentum(schedule, step, total_steps):
    """one_cycle with cycle_momentum: the step's momentum (Adam's beta1), else None."""
    schedule = schedule or {}
    if schedule.get("type") != "one_cycle" or not schedule.get("cycle_momentum", False):
        return None
    top, low = schedule.get("max_momentum", 0.95), schedule.get("base_momentum", 0.85)
    return one_cycle(schedule, min(step, total_steps - 1), total_steps, top, low, top)


def lr_factor(schedule, step, steps_per_epoch, total_steps, base_lr):
    """The multiplier of the base lr at step `step` (0-based over the run), as the runner's README
    gives it: the schedule's rate times, during warm-up, f + (1 - f) * s / W."""
    schedule = schedule or {"type": "constant"}
    kind = schedule.get("type", "constant")
    epoch = step // steps_per_epoch
    if kind == "cosine":
        floor = schedule.get("min_lr", 0.0) / base_lr
        factor = floor + (1 - floor) * (1 + math.cos(math.pi * step / total_steps)) / 2
    elif kind == "step":
        factor = schedule.get("gamma", 0.1) ** (epoch // schedule["step_size"])
    elif kind == "multistep":
        factor = schedule.get("gamma", 0.1) ** sum(epoch >= m for m in schedule["milestones"])
    elif kind == "constant":
        factor = 1.0
    elif kind == "one_cycle":
        initial = 1.0 / schedule.get("div_factor", 25.0)
        factor = one_cycle(schedule, min(step, total_steps - 1), total_steps, initial, 1.0,
                           initial / schedule.get("final_div_factor", 1e4))
    else:
        raise SystemExit(f"schedule {kind}: not supported by this script")
    warmup = schedule.get("warmup")
    if warmup:
        steps = math.floor(warmup["epochs"] * steps_per_epoch + 0.5)
        start = warmup.get("start_factor", 0.1)
        if step < steps:
            factor *= start + (1 - start) * step / steps
    return factor


def accuracy(net, images, labels, dataset, batch):
    net.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, len(labels), batch):
            logits = net(normalise(images[i:i + batch], dataset))
            correct += (logits.argmax(1) == labels[i:i + batch]).sum().item()
    return correct / len(labels)


def mean_loss(net, images, labels, dataset, batch):
    """The mean cross-entropy over the images, as the runner's report's test_loss."""
    net.eval()
    total = 0.0
    with torch.no_grad():
        for i in range(0, len(labels), batch):
            logits = net(normalise(images[i:i + batch], dataset))
            total += F.cross_entropy(logits, labels[i:i + batch], reduction="sum").item()
    return total / len(labels)


def eval_batch(config):
    return config.get("training", {}).get("eval_batch_size", 1000)


def build(config):
    dataset = config["dataset"]
    train = load_split(dataset, True)
    test = load_split(dataset, False)
    shape = tuple(test[0].shape[1:])  # image_size (a per_epoch training split is photos)
    net = GraphNet(config["model"]["plain_layers"], shape, config["model"].get("width", 1.0))
    return net, train, test


class Recipe:
    """One training step of the config's recipe: the batch's augmentation and normalisation, the
    scheduled learning rate, forward, loss, backward, clipping, the optimizer's step."""

    def __init__(self, config, net, images, labels, seed, settings):
        self.dataset, self.training = config["dataset"], config["training"]
        self.settings = settings  # peer_settings: memory format and precision
        self.net, self.images, self.labels = net, images, labels
        self.optimizer = optimizer_for(net, self.training.get("optimizer", {}))
        self.base_lrs = [g["lr"] for g in self.optimizer.param_groups]
        self.batch = self.training.get("batch_size", 4)
        self.epochs = self.training.get("epochs", 1)
        self.steps_per_epoch = math.ceil(len(labels) / self.batch)
        self.total_steps = self.steps_per_epoch * self.epochs
        self.generator = torch.Generator().manual_seed(seed)
        self.mix_rng = np.random.default_rng(seed)  # timm draws its mixing from numpy
        self.classes = int(labels.max()) + 1 if len(labels) else 1
        self.ema = WeightAverage(net, self.training["ema"]) if "ema" in self.training else None

    def epoch_order(self):
        if self.dataset.get("shuffle", True):
            return torch.randperm(len(self.labels), generator=self.generator)
        return torch.arange(len(self.labels))

    def step(self, rows, step):
        steps = self.dataset.get("augment", [])
        x = erase(normalise(augment(self.images[rows], steps, self.generator), self.dataset), steps)
        x, targets = mix_batch(x, self.labels[rows], self.training, self.mix_rng, self.classes)
        x = peer_settings.prepare_input(x, self.settings)
        factor = lr_factor(self.training.get("schedule"), step, self.steps_per_epoch,
                           self.total_steps, self.base_lrs[0])
        for g, lr in zip(self.optimizer.param_groups, self.base_lrs):
            g["lr"] = lr * factor
        momentum = scheduled_momentum(self.training.get("schedule"), step, self.total_steps)
        if momentum is not None:
            for g in self.optimizer.param_groups:
                if "betas" in g:
                    g["betas"] = (momentum, g["betas"][1])
                else:
                    g["momentum"] = momentum
        self.optimizer.zero_grad()
        with peer_settings.autocast(self.settings, x.device):
            logits = self.net(x)
            if targets.dim() == 2:  # mixed: timm's SoftTargetCrossEntropy
                loss = torch.sum(-targets * F.log_softmax(logits.float(), dim=-1), dim=-1).mean()
            else:
                loss = F.cross_entropy(logits, targets,
                                       label_smoothing=self.training.get("label_smoothing", 0.0))
        loss.backward()
        clip = self.training.get("clip_grad_norm", 0)
        if clip:
            nn.utils.clip_grad_norm_(self.net.parameters(), clip)
        self.optimizer.step()
        if self.ema:
            self.ema.after_step(self.net, step + 1)
        return loss.detach()


def train(config, seed, settings):
    torch.manual_seed(seed)
    net, (images, labels), (test_images, test_labels) = build(config)
    initialise(net, config["model"])
    net = peer_settings.prepare_model(net, settings)
    recipe = Recipe(config, net, images, labels, seed, settings)
    step, start = 0, time.perf_counter()
    epoch_losses = []  # the mean training loss of each epoch, as the runner's report has it
    for _ in range(recipe.epochs):
        net.train()
        order = recipe.epoch_order()
        total = torch.zeros(())
        for i in range(0, len(labels), recipe.batch):
            rows = order[i:i + recipe.batch]
            total += recipe.step(rows, step).float() * len(rows)
            step += 1
        epoch_losses.append(total.item() / len(labels))
    seconds = time.perf_counter() - start
    test = lambda: accuracy(net, test_images, test_labels, config["dataset"], eval_batch(config))
    ema = {"test_ema_accuracy": recipe.ema.evaluated(net, test)} if recipe.ema else {}
    return {"seed": seed, "epochs": recipe.epochs, "epoch_losses": epoch_losses,
            "test_accuracy": test(), **ema,
            "train_seconds": seconds, "images_per_second": recipe.epochs * len(labels) / seconds,
            "threads": torch.get_num_threads()}


def bench(config, seed, steps, warmup_steps, settings):
    """`runner bench`'s measurement: untimed warm-up steps, then timed steps of the recipe over
    the shuffled training set (augmentation included); images/s from the median step. The
    learning rate follows the schedule from the first warm-up step and partial batches are
    skipped, as `runner bench` does (runner/train/benchmark.cpp)."""
    torch.manual_seed(seed)
    net, (images, labels), _ = build(config)
    initialise(net, config["model"])
    net = peer_settings.prepare_model(net, settings)
    net.train()
    recipe = Recipe(config, net, images, labels, seed, settings)
    order, cursor, losses, times = recipe.epoch_order(), 0, [], []
    for step in range(warmup_steps + steps):
        if cursor + recipe.batch > len(labels):  # whole batches only, as a timed step should be
            order, cursor = recipe.epoch_order(), 0
        start = time.perf_counter()
        loss = recipe.step(order[cursor:cursor + recipe.batch], step)
        if step >= warmup_steps:
            times.append(time.perf_counter() - start)
            losses.append(loss)
        cursor += recipe.batch
    times.sort()
    return {"peer": "pytorch", "torch_version": torch.__version__,
            "threads": torch.get_num_threads(), **peer_settings.describe(settings), "seed": seed,
            "batch_size": recipe.batch, "steps": steps,
            "images_per_second": recipe.batch / times[len(times) // 2],
            "step_seconds_p10": times[len(times) // 10],
            "step_seconds_p50": times[len(times) // 2],
            "step_seconds_p90": times[9 * len(times) // 10],
            "mean_loss": float(torch.stack(losses).mean()),
            "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}


def evaluate(config, checkpoint):
    net, _, (test_images, test_labels) = build(config)
    state = load_model_state(checkpoint)
    net.load_state_dict(state, strict=True)  # every parameter and buffer, nothing else
    return {"test_accuracy": accuracy(net, test_images, test_labels, config["dataset"],
                                      eval_batch(config)),
            "test_loss": mean_loss(net, test_images, test_labels, config["dataset"],
                                   eval_batch(config)),
            "tensors": len(state)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["train", "evaluate", "bench"])
    parser.add_argument("config")
    parser.add_argument("checkpoint", nargs="?")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--epochs", type=int)
    parser.add_argument("--train-limit", type=int)
    parser.add_argument("--test-limit", type=int)
    parser.add_argument("--threads", type=int)
    parser.add_argument("--batch-size", type=int)
    parser.add_argument("--width", type=float)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--warmup-steps", type=int, default=5)
    peer_settings.add_arguments(parser)
    args = parser.parse_args()
    peer_settings.apply_math(args.math)
    config = read_config(args.config)
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.epochs:
        config["training"]["epochs"] = args.epochs
    if args.train_limit:
        config["dataset"]["train_limit"] = args.train_limit
    if args.test_limit:
        config["dataset"]["test_limit"] = args.test_limit
    if args.batch_size:
        config["training"]["batch_size"] = args.batch_size
    if args.width:
        config["model"]["width"] = args.width
    seed = args.seed if args.seed is not None else config.get("seed", 0)
    if args.command == "train":
        result = train(config, seed, args)
    elif args.command == "bench":
        result = bench(config, seed, args.steps, args.warmup_steps, args)
    else:
        if not args.checkpoint:
            sys.exit("evaluate needs a checkpoint")
        result = evaluate(config, args.checkpoint)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
