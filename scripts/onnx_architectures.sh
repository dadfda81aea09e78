#!/bin/sh
# Exports each shipped CIFAR-10 architecture (LeNet, ResNet-8, ResNet-18, MobileNetV2, the ViT),
# trained one epoch on generated CIFAR-10 files, and checks each with scripts/onnx_check.py
# against `runner predict` on 8 generated 32x32 PNG images: onnx's checker, the NumPy reference and
# OpenCV (which may refuse a model: the ViT in OpenCV 4.6). Prints per architecture the export's
# time and size and the check's findings.
#   scripts/onnx_architectures.sh [BUILD_DIR]   (needs /usr/bin/python3 with onnx, cv2, numpy, PIL)
set -eu
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/runner-onnx-architectures.XXXXXX)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 - "$work" <<'PY'
import os, sys
import numpy as np
from PIL import Image
work = sys.argv[1]
rng = np.random.default_rng(0)
os.makedirs(f"{work}/cifar")
os.makedirs(f"{work}/images")
files = [f"data_batch_{i}.bin" for i in range(1, 6)] + ["test_batch.bin"]
for i, name in enumerate(files):
    count = 64 if i in (0, 1, 5) else 0
    with open(f"{work}/cifar/{name}", "wb") as f:
        for _ in range(count):
            f.write(bytes([rng.integers(10)]) + rng.integers(0, 256, 3072, dtype=np.uint8).tobytes())
for i in range(8):
    Image.fromarray(rng.integers(0, 256, (32, 32, 3), dtype=np.uint8)).save(f"{work}/images/{i}.png")
PY
echo "$(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
for config in lenet_cifar resnet8_cifar resnet18_cifar mobilenetv2_cifar vit_tiny_cifar; do
  "$build/runner" "$here/../configs/$config.yaml" --set dataset.root="$work/cifar" \
    --set dataset.download=false --set training.epochs=1 --set training.batch_size=32 \
    --set device=cpu --quiet --output "$work/runs/$config" > "$work/run.txt"
  run=$(dirname "$(sed -n 's/^report: //p' "$work/run.txt" | tail -1)")
  "$build/runner" predict "$run" "$work/images" --json --top-k 10 > "$work/$config.json" 2>/dev/null
  start=$(date +%s.%N)
  "$build/runner" export "$run" --onnx "$work/$config.onnx" > /dev/null
  took=$(echo "$(date +%s.%N) - $start" | bc)
  size=$(stat -c %s "$work/$config.onnx")
  findings=$(/usr/bin/python3 "$here/onnx_check.py" "$work/$config.onnx" "$work/$config.json" \
    --opencv may 2>/dev/null) || true
  echo "$config: export $(printf '%.2f' "$took") s, $size bytes; $findings"
done
