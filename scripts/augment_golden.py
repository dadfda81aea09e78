#!/usr/bin/python3
"""Writes tests/data/augment_golden.json: what torchvision's functional transforms make of PIL
images for given parameters, for the runner's augmentations (runner/data/augmentations/) to
match.

The reference recipes apply these to PIL images (ImageFolder decodes with Pillow), so every
case here runs on a PIL image, L or RGB, with the drawn parameters fixed: the crop box of
RandomResizedCrop, the four factors of ColorJitter, the angle of RandomRotation, the matrix
parameters of RandomAffine, the sigma of GaussianBlur, and an op with its magnitude of
TrivialAugmentWide / RandAugment (torchvision.transforms.autoaugment._apply_op). The draws
themselves are the runner's own streams (tested for their distributions, not against these).

Run with Debian's Python, which has Pillow and torchvision:
    /usr/bin/python3 scripts/augment_golden.py
Pixels are hex strings of planar (C, H, W) bytes.
"""

import json
import math
import os
import random

import PIL
from PIL import Image
import torch
import torchvision
from torchvision.transforms import InterpolationMode
from torchvision.transforms import autoaugment
from torchvision.transforms import functional as F

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "augment_golden.json")


def planar(image):
    return b"".join(band.tobytes() for band in image.split()).hex()


def test_image(rng, mode, height, width):
    """Smooth colour gradients with noise, some grey and some saturated pixels: every branch of
    the colour conversions (hue sextants, zero saturation, clipping) is taken."""
    channels = 3 if mode == "RGB" else 1
    data = bytearray()
    for c in range(channels):
        for y in range(height):
            for x in range(width):
                base = (x * 255 // max(1, width - 1) * (c + 1) + y * 37 * (2 - c % 2)) % 256
                value = base + rng.randint(-40, 40)
                data.append(max(0, min(255, value)))
    bands = [Image.frombytes("L", (width, height),
                             bytes(data[c * height * width:(c + 1) * height * width]))
             for c in range(channels)]
    image = bands[0] if channels == 1 else Image.merge("RGB", bands)
    if channels == 3:
        # A grey row and a few pure colours.
        pixels = image.load()
        for x in range(width):
            g = (x * 19) % 256
            pixels[x, 0] = (g, g, g)
        pixels[0, 1] = (255, 0, 0)
        pixels[1 % width, 1] = (0, 255, 0)
        pixels[2 % width, 1] = (0, 0, 255)
        pixels[3 % width, 1] = (255, 255, 0)
    return image


def case(op, params, image, output):
    return {"op": op, "params": params, "channels": len(image.getbands()),
            "height": image.height, "width": image.width, "input": planar(image),
            "output": planar(output)}


def main():
    rng = random.Random(20261128)
    images = [test_image(rng, "RGB", 13, 17), test_image(rng, "L", 9, 11),
              test_image(rng, "RGB", 32, 32), test_image(rng, "RGB", 8, 24)]
    cases = []
    for image in images:
        h, w = image.height, image.width
        # resized_crop: a box (top, left, height, width) resized back to the image's size.
        for top, left, bh, bw in [(0, 0, h, w), (1, 2, h - 3, w - 5), (h // 3, w // 4, 3, 5),
                                  (0, 0, 1, 1), (2, 1, h - 2, max(1, w // 2))]:
            out = F.resized_crop(image, top, left, bh, bw, [h, w],
                                 interpolation=InterpolationMode.BILINEAR)
            cases.append(case("resized_crop", {"top": top, "left": left, "height": bh,
                                               "width": bw}, image, out))
        for factor in [0.0, 0.35, 1.0, 1.4, 2.3]:
            cases.append(case("brightness", {"factor": factor}, image,
                              F.adjust_brightness(image, factor)))
            cases.append(case("contrast", {"factor": factor}, image,
                              F.adjust_contrast(image, factor)))
            cases.append(case("saturation", {"factor": factor}, image,
                              F.adjust_saturation(image, factor)))
            cases.append(case("sharpness", {"factor": factor}, image,
                              F.adjust_sharpness(image, factor)))
        for hue in [-0.5, -0.23, -0.01, 0.0, 0.1, 0.37, 0.5]:
            cases.append(case("hue", {"factor": hue}, image, F.adjust_hue(image, hue)))
        cases.append(case("grayscale", {}, image,
                          F.rgb_to_grayscale(image, len(image.getbands()))))
        for angle in [0.0, 17.3, -45.0, 90.0, 180.0, 233.7, -0.4]:
            cases.append(case("rotate", {"angle": angle, "fill": 0}, image,
                              F.rotate(image, angle, InterpolationMode.NEAREST, fill=0)))
        cases.append(case("rotate", {"angle": 30.0, "fill": 128}, image,
                          F.rotate(image, 30.0, InterpolationMode.NEAREST, fill=128)))
        for angle, translate, scale, shear in [(0.0, [0, 0], 1.0, [0.0, 0.0]),
                                               (12.5, [2, -1], 1.1, [5.0, -3.0]),
                                               (-30.0, [0, 3], 0.8, [0.0, 0.0]),
                                               (0.0, [-4, 0], 1.0, [0.0, 0.0]),
                                               (0.0, [0, 0], 1.0, [20.0, 0.0]),
                                               (0.0, [0, 0], 1.3, [0.0, 0.0]),
                                               (45.0, [1, 1], 1.0, [0.0, 10.0])]:
            out = F.affine(image, angle=angle, translate=translate, scale=scale, shear=shear,
                           interpolation=InterpolationMode.NEAREST, fill=0)
            cases.append(case("affine", {"angle": angle, "translate": translate, "scale": scale,
                                         "shear": shear, "center": None, "fill": 0},
                              image, out))
        for kernel, sigma in [(3, 0.6), (5, 1.3), (3, 2.0), (7, 0.1)]:
            if kernel >= min(h, w):
                continue
            cases.append(case("gaussian_blur", {"kernel_size": kernel, "sigma": sigma}, image,
                              F.gaussian_blur(image, [kernel, kernel], [sigma, sigma])))
        for bits in [1, 2, 4, 6, 8]:
            cases.append(case("posterize", {"bits": bits}, image, F.posterize(image, bits)))
        for threshold in [0.0, 64.0, 128.0, 200.5, 255.0]:
            cases.append(case("solarize", {"threshold": threshold}, image,
                              F.solarize(image, threshold)))
        cases.append(case("autocontrast", {}, image, F.autocontrast(image)))
        cases.append(case("equalize", {}, image, F.equalize(image)))
        # The autoaugment ops as TrivialAugmentWide and RandAugment apply them (NEAREST, fill 0),
        # at a few signed magnitudes each.
        for op, magnitudes in [("ShearX", [0.3, -0.99]), ("ShearY", [0.2, -0.5]),
                               ("TranslateX", [3.0, -7.0]), ("TranslateY", [2.0, -1.0]),
                               ("Rotate", [30.0, -135.0])]:
            for magnitude in magnitudes:
                out = autoaugment._apply_op(image, op, magnitude,
                                            interpolation=InterpolationMode.NEAREST, fill=None)
                cases.append(case("autoaugment", {"name": op, "magnitude": magnitude}, image,
                                  out))
    # A constant image: autocontrast and equalize leave it; contrast has nothing to stretch.
    flat = Image.new("RGB", (7, 5), (90, 140, 200))
    cases.append(case("autocontrast", {}, flat, F.autocontrast(flat)))
    cases.append(case("equalize", {}, flat, F.equalize(flat)))
    cases.append(case("contrast", {"factor": 1.7}, flat, F.adjust_contrast(flat, 1.7)))
    # The magnitude spaces: every op's bins as torchvision builds them (float32), for a 32x24
    # image (RandAugment's translations scale with the sides).
    spaces = {}
    for name, space in [("trivial_augment_wide",
                         autoaugment.TrivialAugmentWide()._augmentation_space(31)),
                        ("rand_augment",
                         autoaugment.RandAugment()._augmentation_space(31, (32, 24)))]:
        spaces[name] = {op: {"values": [float(v) for v in m.reshape(-1).tolist()]
                             if m.ndim > 0 else [], "signed": bool(signed)}
                        for op, (m, signed) in space.items()}
    golden = {"made_by": f"scripts/augment_golden.py with Pillow {PIL.__version__}, "
                         f"torchvision {torchvision.__version__}, torch {torch.__version__}",
              "spaces": spaces, "cases": cases}
    with open(OUT, "w") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")
    print(f"{len(cases)} cases -> {OUT}")


if __name__ == "__main__":
    main()
