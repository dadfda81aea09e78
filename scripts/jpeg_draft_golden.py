#!/usr/bin/python3
"""Writes tests/data/jpeg_draft_golden.json: JPEGs decoded by Pillow after Image.draft(mode,
(width, height)), the DCT-domain downscaling dataset.jpeg_draft does (runner/data/image_jpeg.cpp
must give the same size and every byte): baseline and progressive, RGB and grey, 4:2:0 and 4:4:4
sampling, draft sizes that reach each scale (1/8, 1/4, 1/2) and ones that keep the full size, and
the draft followed by torchvision's Resize to the draft size (what a run decodes and resizes).

Run with Debian's Python, which has Pillow and torchvision (Pillow decodes with the system's
libjpeg-turbo, the library the runner links):
    /usr/bin/python3 scripts/jpeg_draft_golden.py
Files are hex strings of the JPEG's bytes; pixels hex strings of planar (C, H, W) bytes.
"""

import io
import os
import random

from PIL import Image
from torchvision import transforms as T

from image_golden import planar, write_cases  # scripts/: a PIL image as planar (C, H, W) bytes

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "jpeg_draft_golden.json")


def photo(rng, mode, width, height):
    """Smooth gradients with noise: a JPEG of it has real detail at every scale."""
    bands = 3 if mode == "RGB" else 1
    data = bytearray()
    for y in range(height):
        for x in range(width):
            for b in range(bands):
                value = (x * (3 + b) + y * (5 - b)) % 256
                data.append(max(0, min(255, value + rng.randrange(-20, 21))))
    return Image.frombytes(mode, (width, height), bytes(data))


def jpeg(image, **options):
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=90, **options)
    return buffer.getvalue()


def main():
    rng = random.Random(11)
    # (mode, width, height, save options, draft (width, height), channels asked for)
    cases = [
        ("RGB", 64, 48, {}, (8, 6), 3),                          # 1/8
        ("RGB", 64, 48, {}, (16, 12), 3),                        # 1/4
        ("RGB", 64, 48, {}, (30, 22), 3),                        # 1/2
        ("RGB", 64, 48, {}, (40, 22), 3),                        # full: 64 // 40 = 1
        ("RGB", 49, 33, {"progressive": True}, (6, 4), 3),       # odd sides, rounded up
        ("RGB", 49, 33, {"subsampling": 0}, (12, 8), 3),         # 4:4:4
        ("RGB", 40, 40, {}, (10, 10), 1),                        # RGB file read as grey
        ("L", 41, 60, {}, (5, 7), 1),
        ("L", 41, 60, {"progressive": True}, (10, 14), 3),       # grey file read as RGB
    ]
    out = []
    for mode, width, height, options, draft, channels in cases:
        data = jpeg(photo(rng, mode, width, height), **options)
        image = Image.open(io.BytesIO(data))
        image.draft("RGB", draft)  # the scale only; the conversion follows, as the runner's
        decoded = image.convert("RGB" if channels == 3 else "L")
        # A run resizes what it decoded to the size the draft was for (Resize((h, w))).
        resized = T.Resize((draft[1], draft[0]))(decoded)
        out.append({"file": data.hex(), "options": options, "draft_width": draft[0],
                    "draft_height": draft[1], "channels": channels,
                    "decoded_width": decoded.size[0], "decoded_height": decoded.size[1],
                    "decoded": planar(decoded), "resized": planar(resized)})
    write_cases(OUT, out)


if __name__ == "__main__":
    main()
