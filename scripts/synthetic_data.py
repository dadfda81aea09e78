#!/usr/bin/env python3
"""The runner's synthetic dataset (runner/data/synthetic.cpp) rebuilt in numpy, byte for byte,
so that the PyTorch peer of the benchmark trains on exactly the runner's images.

The runner draws from splitmix64, whose k-th output is a pure function of seed + k, so whole
streams are computed at once. Usage: synthetic_data.py C H W CLASSES TRAIN TEST OUT writes the
train images, train labels, test images and test labels (uint8, int32) to OUT, in that order.
"""
import sys

import numpy as np

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
NOISE = 48  # kSyntheticNoise


def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def stream(seed, count, start=0):
    """`count` outputs of runner::Random(seed).next_u64(), from the one after the first `start`."""
    with np.errstate(over="ignore"):
        k = np.arange(start + 1, start + count + 1, dtype=np.uint64)
        return _mix(np.uint64(seed) + k * GOLDEN)


def below(values, bound):
    """runner::Random::below for each draw: the high 64 bits of value * bound (bound < 2^32).
    Lemire's rejection step fires with probability bound / 2^64 and is checked, not replayed."""
    bound = np.uint64(bound)
    with np.errstate(over="ignore"):
        low = (values & np.uint64(0xFFFFFFFF)) * bound
        high = (values >> np.uint64(32)) * bound + (low >> np.uint64(32))
        product_low = (high << np.uint64(32)) | (low & np.uint64(0xFFFFFFFF))
    threshold = (2**64 - int(bound)) % int(bound)
    if np.any(product_low < np.uint64(threshold)):
        raise RuntimeError("a rejected draw: this seed needs the sequential generator")
    return (high >> np.uint64(32)).astype(np.int64)


def derive_seed(base, stream_id):
    with np.errstate(over="ignore"):
        mixed = np.uint64(base) ^ (np.uint64(stream_id) * np.uint64(0xD1B54A32D192ED03))
    return int(stream(mixed, 1)[0])


def make_split(prototypes, classes, count, seed, chunk=256):
    """Each image draws its label then its bytes' noise. Built `chunk` images at a time: the
    whole split's 64-bit temporaries would be gigabytes of page faults (make bench starts a peer,
    and so this, a few hundred times)."""
    image_bytes = prototypes.shape[1]
    images = np.empty((count, image_bytes), dtype=np.uint8)
    labels = np.empty(count, dtype=np.int32)
    for first in range(0, count, chunk):
        n = min(chunk, count - first)
        draws = stream(seed, n * (1 + image_bytes), first * (1 + image_bytes))
        draws = draws.reshape(n, 1 + image_bytes)
        labels[first:first + n] = below(draws[:, 0], classes)
        noise = below(draws[:, 1:], 2 * NOISE + 1) - NOISE
        images[first:first + n] = np.clip(prototypes[labels[first:first + n]].astype(np.int64)
                                          + noise, 0, 255)
    return images, labels


def make_synthetic(channels, height, width, classes, train_count, test_count, seed=0):
    image_bytes = channels * height * width
    prototypes = below(stream(derive_seed(seed, 1), classes * image_bytes), 256)
    prototypes = prototypes.reshape(classes, image_bytes)
    shape = (-1, channels, height, width)
    train_images, train_labels = make_split(prototypes, classes, train_count, derive_seed(seed, 2))
    test_images, test_labels = make_split(prototypes, classes, test_count, derive_seed(seed, 3))
    return train_images.reshape(shape), train_labels, test_images.reshape(shape), test_labels


if __name__ == "__main__":
    c, h, w, classes, train, test = (int(v) for v in sys.argv[1:7])
    with open(sys.argv[7], "wb") as out:
        for array in make_synthetic(c, h, w, classes, train, test):
            out.write(array.tobytes())
