#!/usr/bin/python3
"""Writes tests/data/image_golden.json: what Pillow and torchvision make of images, for the
runner's image library (runner/data/image_*) to match bit for bit.

- resize: torchvision's transforms.Resize([h, w]) on PIL images (Pillow's BILINEAR), 1 and 3
  channels, up and down, non-integer ratios, one axis only, identity.
- gray: Pillow's convert('L') of RGB pixels.
- decode: small files of every PNG mode (written here by hand: 1/2/4/8/16-bit gray, gray+alpha,
  palette with and without tRNS and with an index past the palette, RGB, RGBA, 8 and 16 bits),
  JPEG (RGB, gray, CMYK), WebP (lossy, lossless with alpha) and BMP (24-bit, palette, gray,
  1-bit) written by Pillow, and a top-down 24-bit BMP (its rows reversed under a negative
  height, which Pillow reads but does not write), with Pillow's convert('RGB') and convert('L')
  of each.
- order: the classes and samples torchvision's ImageFolder finds in a small tree.

Run with Debian's Python, which has Pillow and torchvision:
    /usr/bin/python3 scripts/image_golden.py
Pixels are hex strings of planar (C, H, W) bytes.
"""

import io
import json
import os
import random
import struct
import tempfile
import zlib

import PIL
from PIL import Image
import torchvision
from torchvision import transforms

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "image_golden.json")


def planar(image):
    """(C, H, W) bytes of an L or RGB image."""
    bands = image.split()
    return b"".join(b.tobytes() for b in bands).hex()


def write_cases(path, cases):
    """Writes a golden file: the library versions that made it and its cases."""
    with open(path, "w") as f:
        json.dump({"torchvision": torchvision.__version__, "pillow": Image.__version__,
                   "cases": cases}, f, indent=1)
        f.write("\n")
    print(f"{len(cases)} cases in {path}")


def from_planar(data, channels, height, width):
    plane = height * width
    bands = [Image.frombytes("L", (width, height), data[c * plane:(c + 1) * plane])
             for c in range(channels)]
    return bands[0] if channels == 1 else Image.merge("RGB", bands)


def resize_cases():
    rng = random.Random(1)
    cases = []
    # (channels, height, width) -> (height, width)
    shapes = [((1, 23, 37), (32, 32)), ((3, 64, 64), (28, 28)), ((3, 7, 5), (16, 16)),
              ((1, 10, 10), (3, 7)), ((3, 13, 17), (13, 40)), ((1, 30, 9), (11, 9)),
              ((3, 100, 3), (9, 50)), ((1, 1, 1), (4, 4)), ((3, 8, 8), (8, 8)),
              ((1, 19, 31), (18, 12))]
    for (c, h, w), (oh, ow) in shapes:
        data = bytes(rng.randrange(256) for _ in range(c * h * w))
        out = transforms.Resize([oh, ow])(from_planar(data, c, h, w))
        cases.append({"channels": c, "height": h, "width": w, "out_height": oh, "out_width": ow,
                      "input": data.hex(), "output": planar(out)})
    # Saturated input: Pillow's weights round to a sum above 1, and the result clips at 255.
    data = bytes([255]) * (37 * 41)
    out = transforms.Resize([16, 9])(from_planar(data, 1, 37, 41))
    cases.append({"channels": 1, "height": 37, "width": 41, "out_height": 16, "out_width": 9,
                  "input": data.hex(), "output": planar(out)})
    return cases


def gray_case():
    rng = random.Random(2)
    pixels = [(0, 0, 0), (255, 255, 255), (255, 0, 0), (0, 255, 0), (0, 0, 255), (1, 2, 3)]
    pixels += [tuple(rng.randrange(256) for _ in range(3)) for _ in range(250)]
    image = Image.new("RGB", (len(pixels), 1))
    image.putdata(pixels)
    return {"width": len(pixels), "rgb": planar(image), "l": planar(image.convert("L"))}


def chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data +
            struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def png(width, height, color_type, depth, samples, palette=None, trns=None):
    """A PNG of rows of samples, filter 0, no interlace."""
    per_pixel = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color_type]
    raw = b""
    for y in range(height):
        row = samples[y * width * per_pixel:(y + 1) * width * per_pixel]
        if depth == 16:
            data = b"".join(struct.pack(">H", v) for v in row)
        elif depth == 8:
            data = bytes(row)
        else:
            bits = "".join(format(v, "0{}b".format(depth)) for v in row)
            bits += "0" * (-len(bits) % 8)
            data = bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8))
        raw += b"\x00" + data
    out = b"\x89PNG\r\n\x1a\n"
    out += chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, color_type, 0, 0, 0))
    if palette:
        out += chunk(b"PLTE", bytes(v for entry in palette for v in entry))
    if trns:
        out += chunk(b"tRNS", trns)
    out += chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    return out


def png_files():
    rng = random.Random(3)
    w, h = 7, 5
    files = []

    def samples(count, depth):
        return [rng.randrange(1 << depth) for _ in range(count)]

    for depth in (1, 2, 4, 8):
        files.append(("gray{}.png".format(depth), png(w, h, 0, depth, samples(w * h, depth))))
    # 16-bit gray: values below and above 255 (Pillow clips those to 255).
    gray16 = [rng.choice([rng.randrange(256), rng.randrange(65536)]) for _ in range(w * h)]
    files.append(("gray16.png", png(w, h, 0, 16, gray16)))
    files.append(("gray_alpha8.png", png(w, h, 4, 8, samples(2 * w * h, 8))))
    files.append(("gray_alpha16.png", png(w, h, 4, 16, samples(2 * w * h, 16))))
    files.append(("rgb8.png", png(w, h, 2, 8, samples(3 * w * h, 8))))
    files.append(("rgb16.png", png(w, h, 2, 16, samples(3 * w * h, 16))))
    files.append(("rgba8.png", png(w, h, 6, 8, samples(4 * w * h, 8))))
    files.append(("rgba16.png", png(w, h, 6, 16, samples(4 * w * h, 16))))
    for depth in (1, 2, 4, 8):
        entries = 1 << depth if depth < 8 else 200
        palette = [tuple(rng.randrange(256) for _ in range(3)) for _ in range(entries)]
        files.append(("palette{}.png".format(depth),
                      png(w, h, 3, depth, samples(w * h, depth if depth < 8 else 7), palette)))
    palette = [tuple(rng.randrange(256) for _ in range(3)) for _ in range(16)]
    trns = bytes(rng.randrange(256) for _ in range(16))
    files.append(("palette_trns.png", png(w, h, 3, 4, samples(w * h, 4), palette, trns)))
    # Indices 10..15 are past a 10-entry palette.
    files.append(("palette_short.png", png(w, h, 3, 4, samples(w * h, 4), palette[:10])))
    return files


def top_down_bmp(bmp):
    """The 24-bit BMP `bmp` with its rows stored top-down, as a negative height says."""
    offset, = struct.unpack_from("<I", bmp, 10)
    width, height = struct.unpack_from("<ii", bmp, 18)
    stride = (width * 3 + 3) // 4 * 4
    rows = [bmp[offset + r * stride:offset + (r + 1) * stride] for r in range(height)]
    return (bmp[:22] + struct.pack("<i", -height) + bmp[26:offset] +
            b"".join(reversed(rows)))


def pillow_files():
    rng = random.Random(4)
    w, h = 13, 11
    # Smooth with noise, so that lossy codecs keep something like the picture.
    rgb = Image.new("RGB", (w, h))
    rgb.putdata([((x * 19 + rng.randrange(20)) % 256, (y * 23 + rng.randrange(20)) % 256,
                  (x * y * 3 + rng.randrange(20)) % 256) for y in range(h) for x in range(w)])
    files = []

    def save(name, image, fmt, **options):
        buffer = io.BytesIO()
        image.save(buffer, fmt, **options)
        files.append((name, buffer.getvalue()))

    save("rgb.jpg", rgb, "JPEG", quality=90)
    save("gray.jpg", rgb.convert("L"), "JPEG", quality=90)
    save("cmyk.jpg", rgb.convert("CMYK"), "JPEG", quality=90)
    save("lossy.webp", rgb, "WEBP", quality=80)
    rgba = rgb.convert("RGBA")
    rgba.putdata([p[:3] + ((0 if i % 3 == 0 else 128 + i) % 256,) for i, p in
                  enumerate(rgba.getdata())])
    save("lossless_alpha.webp", rgba, "WEBP", lossless=True, exact=True)
    save("rgb24.bmp", rgb, "BMP")
    files.append(("topdown.bmp", top_down_bmp(files[-1][1])))
    save("palette.bmp", rgb.convert("P"), "BMP")
    save("gray.bmp", rgb.convert("L"), "BMP")
    save("bilevel.bmp", rgb.convert("1"), "BMP")
    return files


def decode_cases():
    cases = []
    for name, data in png_files() + pillow_files():
        image = Image.open(io.BytesIO(data))
        image.load()
        rgb = image.convert("RGB")
        cases.append({"name": name, "mode": image.mode, "height": rgb.height, "width": rgb.width,
                      "file": data.hex(), "rgb": planar(rgb), "l": planar(image.convert("L"))})
    return cases


def order_case():
    files = ["cat/b.png", "cat/a.PNG", "cat/Z.jpg", "cat/sub/c.png", "cat/sub-x/d.jpeg",
             "cat/sub/deeper/e.bmp", "cat/a-b/f.webp", "cat/zz.webp", "cat/notes.txt",
             "cat/sub/A.Jpeg", "dog/1.jpg", "dog/10.jpg", "dog/2.jpg", "dog/sub/0.png",
             "Bird/x.png", "Bird/y.tif.png"]
    with tempfile.TemporaryDirectory() as root:
        for f in files:
            os.makedirs(os.path.dirname(os.path.join(root, f)), exist_ok=True)
            open(os.path.join(root, f), "wb").close()
        folder = torchvision.datasets.ImageFolder(root)
        samples = [[os.path.relpath(p, root), t] for p, t in folder.samples]
        return {"files": files, "classes": folder.classes, "samples": samples}


def main():
    golden = {
        "made_by": "scripts/image_golden.py with Pillow {}, torchvision {}".format(
            PIL.__version__, torchvision.__version__),
        "resize": resize_cases(),
        "gray": gray_case(),
        "decode": decode_cases(),
        "order": order_case(),
    }
    with open(OUT, "w") as out:
        json.dump(golden, out, indent=1)
        out.write("\n")
    print("wrote", os.path.normpath(OUT))


if __name__ == "__main__":
    main()
