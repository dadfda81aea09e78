#!/usr/bin/env python3
"""Writes Debian's Fashion-MNIST as an image folder, as a user's own photos would arrive:
OUT/train/<class>/*.png|*.jpg and OUT/test/<class>/..., half of them PNG at 28x28 and half JPEG
upscaled to 40x40 (so the runner's resize is exercised), N_TRAIN and N_TEST images per class.

usage: /usr/bin/python3 scripts/fashion_mnist_folder.py OUT [N_TRAIN] [N_TEST]"""
import gzip
import os
import sys

import numpy as np
from PIL import Image

ROOT = "/usr/share/datasets/fashion-mnist"
CLASSES = ["t-shirt", "trouser", "pullover", "dress", "coat", "sandal", "shirt", "sneaker", "bag",
           "ankle-boot"]


def read_idx(stem):
    path = os.path.join(ROOT, stem)
    data = gzip.open(path + ".gz").read() if os.path.exists(path + ".gz") else open(path, "rb").read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, np.uint8, offset=4 + 4 * dims).reshape(shape)


def write_split(out, prefix, split, per_class):
    images, labels = read_idx(f"{prefix}-images-idx3-ubyte"), read_idx(f"{prefix}-labels-idx1-ubyte")
    written = [0] * len(CLASSES)
    for image, label in zip(images, labels):
        if written[label] == per_class:
            continue
        folder = os.path.join(out, split, CLASSES[label])
        os.makedirs(folder, exist_ok=True)
        picture = Image.fromarray(image, "L")
        if written[label] % 2:
            picture.resize((40, 40), Image.BICUBIC).save(
                os.path.join(folder, f"{written[label]:05d}.jpg"), quality=95)
        else:
            picture.save(os.path.join(folder, f"{written[label]:05d}.png"))
        written[label] += 1


def main():
    out = sys.argv[1]
    write_split(out, "train", "train", int(sys.argv[2]) if len(sys.argv) > 2 else 1000)
    write_split(out, "t10k", "test", int(sys.argv[3]) if len(sys.argv) > 3 else 200)


if __name__ == "__main__":
    main()
