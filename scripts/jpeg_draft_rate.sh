#!/bin/sh
# Measures dataset.jpeg_draft: writes an ImageFolder of COUNT JPEG photos of SIDExSIDE*3/4 (Pillow,
# quality 90) and decodes it into a split of IMAGE_SIZE with the runner (a one-epoch run of a
# tiny model with 1 loader worker and a fresh decoded cache: the report's startup_seconds, which
# is mostly the decoding) with and without the draft, and with Pillow in one process (open,
# draft or not, convert('RGB'), torchvision's Resize), alternating, three times each.
#   scripts/jpeg_draft_rate.sh [BUILD_DIR] [COUNT] [SIDE] [IMAGE_SIZE]   (defaults: build 500 1024 64)
set -eu
build=${1:-build}
count=${2:-500}
side=${3:-1024}
size=${4:-64}
folder=$(mktemp -d /tmp/runner-jpeg-draft.XXXXXX)
trap 'rm -rf "$folder"' EXIT
/usr/bin/python3 - "$folder/photos" "$count" "$side" <<'PY'
import os, random, sys
from PIL import Image
folder, count, side = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(0)
for split, n in (("train", count), ("test", 20)):
    for i in range(n):
        klass = os.path.join(folder, split, "class{}".format(i % 10))
        os.makedirs(klass, exist_ok=True)
        # A smooth picture with noise: closer to a photo's compressed size than pure noise.
        image = Image.linear_gradient("L").resize((side, side * 3 // 4)).convert("RGB")
        noise = Image.effect_noise((side, side * 3 // 4), 30).convert("RGB")
        image = Image.blend(image, noise, 0.4).rotate(rng.randrange(360))
        image.save(os.path.join(klass, "{:05d}.jpg".format(i)), quality=90)
PY
echo "$(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "$count JPEGs of ${side}x$((side * 3 / 4)) decoded to ${size}x$size, seconds (images/s)"
runner_decode() {  # $1: true or false (jpeg_draft)
  out=$folder/run-$1-$$
  rm -rf "$folder/cache"
  "$build/runner" run "$(dirname "$0")/../configs/lenet_image_folder.yaml" --quiet --output "$out" \
    --set dataset.root="$folder/photos" --set "dataset.image_size=[$size, $size]" \
    --set dataset.channels=3 --set "dataset.normalize={mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5]}" \
    --set dataset.jpeg_draft="$1" --set dataset.cache="$folder/cache" --set dataset.workers=1 \
    --set training.epochs=1 --set training.threads=1 >/dev/null
  /usr/bin/python3 -c 'import json, sys, glob; r = json.load(open(glob.glob(sys.argv[1] + "/*/*/report.json")[0])); s = r["wall_time"]["startup_seconds"]; print(f"{s:.2f} ({int(sys.argv[2]) / s:,.0f}/s)")' "$out" "$count"
  rm -rf "$out"
}
pillow_decode() {  # $1: True or False (draft)
  /usr/bin/python3 - "$folder/photos/train" "$size" "$1" <<'PY'
import glob, sys, time
from PIL import Image
from torchvision import transforms as T
files, size, draft = sorted(glob.glob(sys.argv[1] + "/*/*.jpg")), int(sys.argv[2]), sys.argv[3] == "True"
resize = T.Resize((size, size))
start = time.perf_counter()
for f in files:
    image = Image.open(f)
    if draft:
        image.draft("RGB", (size, size))
    resize(image.convert("RGB"))
took = time.perf_counter() - start
print(f"{took:.2f} ({len(files) / took:,.0f}/s)")
PY
}
for repeat in 1 2 3; do
  echo "repeat $repeat: runner draft $(runner_decode true), runner full $(runner_decode false)," \
    "Pillow draft $(pillow_decode True), Pillow full $(pillow_decode False)"
done
