#!/usr/bin/python3
"""Writes tests/data/fit_golden.json: torchvision's evaluation transforms on PIL images, for
dataset.eval_transform (runner/data/image_fit.h) to match byte for byte: Resize(side) of the
shorter side, Resize((h, w)), CenterCrop((h, w)) (with its zero padding when the image is
smaller, and its half-to-even rounding of the window's offset), and the two composed as the
reference recipes compose them. 1 and 3 channels, portrait, landscape and square images.

Run with Debian's Python, which has Pillow and torchvision:
    /usr/bin/python3 scripts/fit_golden.py
Pixels are hex strings of planar (C, H, W) bytes.
"""

import os
import random

from torchvision import transforms as T

# scripts/: planar (C, H, W) bytes <-> PIL, and the golden file's writer
from image_golden import from_planar, planar, write_cases

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "fit_golden.json")


def main():
    rng = random.Random(7)
    # (channels, height, width), the fit, the output (height, width)
    cases = [
        ((3, 40, 30), {"shorter_side": 20, "center_crop": True}, (16, 16)),
        ((1, 30, 41), {"shorter_side": 18, "center_crop": True}, (16, 14)),
        ((3, 25, 25), {"shorter_side": 12, "center_crop": True}, (11, 11)),
        ((3, 21, 34), {"shorter_side": 9, "center_crop": True}, (12, 12)),  # padded
        ((1, 17, 29), {"resize": [20, 20], "center_crop": True}, (15, 16)),
        ((3, 33, 19), {"center_crop": True}, (20, 14)),
        ((1, 9, 12), {"center_crop": True}, (11, 15)),  # padded on both axes
        ((3, 31, 37), {"shorter_side": 16}, (16, 19)),
    ]
    out = []
    for (c, h, w), fit, (oh, ow) in cases:
        data = bytes(rng.randrange(256) for _ in range(c * h * w))
        steps = []
        if "shorter_side" in fit:
            steps.append(T.Resize(fit["shorter_side"]))
        if "resize" in fit:
            steps.append(T.Resize(tuple(fit["resize"])))
        if fit.get("center_crop"):
            steps.append(T.CenterCrop((oh, ow)))
        result = T.Compose(steps)(from_planar(data, c, h, w))
        assert result.size == (ow, oh), (result.size, oh, ow)
        out.append({"channels": c, "height": h, "width": w, "fit": fit, "out_height": oh,
                    "out_width": ow, "pixels": data.hex(), "expected": planar(result)})
    write_cases(OUT, out)


if __name__ == "__main__":
    main()
