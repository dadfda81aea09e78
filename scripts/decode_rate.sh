#!/bin/sh
# Measures the image library (runner/data/image_*): writes an ImageFolder split of COUNT images
# (half PNG, half JPEG, 32x32 and 64x64, made by Pillow) and runs the measurement in data_tests
# (tests/data/image_decode_rate.cpp): images/s with 1 and 2 workers, cold decode against a
# decoded-cache hit.
#   scripts/decode_rate.sh [BUILD_DIR] [COUNT] [SIZE]    (defaults: build 2000 32)
set -eu
build=${1:-build}
count=${2:-2000}
size=${3:-32}
folder=$(mktemp -d /tmp/runner-decode-rate.XXXXXX)
trap 'rm -rf "$folder"' EXIT
/usr/bin/python3 - "$folder" "$count" <<'PY'
import os, random, sys
from PIL import Image
folder, count = sys.argv[1], int(sys.argv[2])
rng = random.Random(0)
for i in range(count):
    side = 32 if i % 2 == 0 else 64
    klass = "class{}".format(i % 10)
    os.makedirs(os.path.join(folder, klass), exist_ok=True)
    # A smooth picture with noise: closer to a photo's compressed size than pure noise.
    image = Image.linear_gradient("L").resize((side, side)).convert("RGB")
    noise = Image.effect_noise((side, side), 40).convert("RGB")
    image = Image.blend(image, noise, 0.5).rotate(rng.randrange(360))
    if i % 4 < 2:
        image.save(os.path.join(folder, klass, "{:05d}.png".format(i)))
    else:
        image.save(os.path.join(folder, klass, "{:05d}.jpg".format(i)), quality=90)
PY
echo "$(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
RUNNER_DECODE_RATE_FOLDER=$folder RUNNER_DECODE_RATE_SIZE=$size \
  "$build/data_tests" --gtest_filter=ImageSetRate.DecodeRate | grep -v '^\[' | grep -v '^$' || true
