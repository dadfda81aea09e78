#!/usr/bin/env bash
# dataset.decode: per_epoch at scale: writes N JPEG photos of 256x256 (10 classes) and 500 test
# photos under a temporary folder, trains one epoch at image_size 224 with random_resized_crop and
# horizontal_flip (a small CNN, 2 loader workers) with decode: per_epoch, and prints the run's
# peak resident memory, its training images/s and the loader's decode+augment rate per worker;
# then times torchvision's ImageFolder + DataLoader with the same transforms on the same files
# (1 worker; images/s per worker). With --once, also the run with decode: once.
#
# Usage: scripts/per_epoch_memory.sh [N] [--once]   (default 50000; needs a built runner and
# /usr/bin/python3 with Pillow, torch and torchvision)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
runner=${RUNNER:-$here/../build/runner}
count=${1:-50000}
once=${2:-}
work=${WORK:-$(mktemp -d)}
echo "work: $work" >&2
/usr/bin/python3 - "$work/photos" "$count" <<'PY'
import os, random, sys
from multiprocessing import Pool
from PIL import Image, ImageDraw
root, count = sys.argv[1], int(sys.argv[2])

def write(job):
    split, i = job
    rng = random.Random(i * 7 + (split == "test"))
    label = i % 10
    path = os.path.join(root, split, f"class{label}", f"{i}.jpg")
    if os.path.exists(path):
        return
    image = Image.new("RGB", (256, 256), (25 * label, 255 - 25 * label, rng.randrange(256)))
    draw = ImageDraw.Draw(image)
    for _ in range(12):
        x, y = rng.randrange(256), rng.randrange(256)
        draw.ellipse((x, y, x + rng.randrange(8, 80), y + rng.randrange(8, 80)),
                     fill=tuple(rng.randrange(256) for _ in range(3)))
    image.save(path, quality=90)

for split in ("train", "test"):
    for label in range(10):
        os.makedirs(os.path.join(root, split, f"class{label}"), exist_ok=True)
jobs = [("train", i) for i in range(count)] + [("test", i) for i in range(500)]
with Pool(2) as pool:
    pool.map(write, jobs, chunksize=256)
PY
cat > "$work/photos.yaml" <<YAML
name: photos_per_epoch
dataset:
  name: image_folder
  root: $work/photos
  image_size: 224
  decode: per_epoch
  workers: 2
  cache: $work/cache
  augment:
    - random_resized_crop: {}
    - horizontal_flip: {}
model:
  layers:
    - {name: conv1, type: conv2d, out_channels: 8, kernel: 8, stride: 8}
    - {name: relu1, type: relu}
    - {name: pool, type: global_avg_pool2d}
    - {name: flat, type: flatten}
    - {name: fc, type: linear, out_features: 10}
training: {epochs: 1, batch_size: 64, optimizer: {type: sgd, lr: 0.05, momentum: 0.9}}
YAML
measure() {
  "$runner" "$work/photos.yaml" --quiet --output "$work/runs/$1" "${@:2}" > /dev/null
  /usr/bin/python3 - "$(find "$work/runs/$1" -name report.json | head -n 1)" "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
t = r["throughput"]
print(f"{sys.argv[2]}: peak RSS {r['memory']['peak_rss_bytes'] / 2**20:.0f} MiB, "
      f"{t['whole_run_images_per_second']:.0f} training images/s (whole run), "
      f"loader {r['data'].get('augment_images_per_second', 0):.0f} images/s per worker "
      f"(decode + augment), data wait {100 * t['data_wait_fraction']:.1f} %, "
      f"wall {r['wall_time']['total_seconds']:.0f} s")
PY
}
measure per_epoch
[ "$once" = "--once" ] && measure once --set dataset.decode=once
/usr/bin/python3 - "$work/photos/train" <<'PY'
import sys, time, torch
from torchvision import datasets, transforms as T
torch.set_num_threads(1)
data = datasets.ImageFolder(sys.argv[1], T.Compose([
    T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.PILToTensor()]))
subset = torch.utils.data.Subset(data, range(0, len(data), max(1, len(data) // 3000)))
loader = torch.utils.data.DataLoader(subset, batch_size=64, num_workers=1, shuffle=True)
start, n = time.perf_counter(), 0
for images, _ in loader:
    n += len(images)
print(f"torchvision ImageFolder + DataLoader, 1 worker: {n / (time.perf_counter() - start):.0f} "
      f"images/s over {n} images")
PY
