#!/usr/bin/env bash
# Packs a built runner for a GPU machine that has no apt and no internet: the binary, the
# non-CUDA shared libraries it needs (from ldd), schemas/, configs/, the benchmark scripts, and
# launchers that find cuDNN and cuBLAS on that machine (its CUDA toolkit or its Python's nvidia
# packages).
#
# Usage: scripts/gpu_bundle.sh [--build DIR] [--out DIR] [--data DIR] [--tests] [--archive]
#   --build DIR   the build folder holding `runner` (default: build)
#   --out DIR     the bundle folder to (re)create (default: BUILD/runner-gpu)
#   --data DIR    also copy a dataset folder into the bundle's data/ (e.g. Fashion-MNIST)
#   --tests       also bundle BUILD/backend_tests (the parity tests) with its own launcher
#   --archive     also write OUT.tar.xz next to the bundle folder
# On the GPU machine: tar xf runner-gpu.tar.xz && runner-gpu/runner devices
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
out=""
data=""
tests=0
archive=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --tests) tests=1; shift ;;
    --archive) archive=1; shift ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "gpu_bundle: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
out=${out:-$build/runner-gpu}

binaries=(runner)
if [ "$tests" = 1 ]; then binaries+=(backend_tests); fi
for b in "${binaries[@]}"; do
  if [ ! -x "$build/$b" ]; then
    echo "gpu_bundle: $build/$b not found: build it first (cmake --build $build --target $b)" >&2
    exit 1
  fi
done
# The cuDNN backend is a library the runner opens from its own folder (backends/cudnn/plugin.h).
plugin=librunner_cudnn.so
elf_files=("${binaries[@]}")
if [ -f "$build/$plugin" ]; then
  elf_files+=("$plugin")
else
  echo "gpu_bundle: warning: $build/$plugin not found: the runner was built without the cuDNN" \
       "backend (no CUDA toolkit or RUNNER_CUDA=OFF); the bundle will run on the CPU only" >&2
fi

# Libraries the GPU machine provides itself: the C runtime (a bundled one could not match its
# loader), the driver and the CUDA libraries (they must match the driver and are found by the
# launcher). The C++ runtime (libstdc++, libgcc_s) is bundled: ours (GLIBCXX_3.4.30) is newer than
# what cuDNN needs, so it serves both, on distributions whose own is older (Ubuntu 22.04, RHEL 9).
system_lib='^(linux-vdso|ld-linux|libc\.|libm\.|libpthread\.|libdl\.|librt\.|libresolv\.|libutil\.)'
cuda_lib='^(libcuda\.|libcudnn|libcublas|libcudart|libnvidia-|libnvrtc|libnvJitLink)'

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
for f in "${elf_files[@]}"; do cp "$build/$f" "$out/bin/$f"; done
cp -r "$root/schemas" "$root/configs" "$out/"
# The benchmark suite, to run against PyTorch there: python3 OUT/scripts/bench.py --device cuda;
# and the GPU check (tests, and LeNet in every precision): OUT/scripts/gpu_check.sh
mkdir -p "$out/scripts"
cp "$root/scripts/bench.py" "$root/scripts/pytorch_lenet.py" "$root/scripts/peer_settings.py" \
   "$root/scripts/synthetic_data.py" "$root/scripts/gpu_check.sh" "$out/scripts/"

needed_cuda=()
while read -r name _ path _; do
  if [[ $name =~ $cuda_lib ]]; then
    [[ " ${needed_cuda[*]} " == *" $name "* ]] || needed_cuda+=("$name")
  elif [[ ! $name =~ $system_lib ]]; then
    if [ ! -f "$path" ]; then
      echo "gpu_bundle: $name is not found on this machine (ldd: $path)" >&2
      exit 1
    fi
    cp -L "$path" "$out/lib/$name"
  fi
done < <(for f in "${elf_files[@]}"; do ldd "$build/$f"; done |
         sed -n 's/^[[:space:]]*\([^ ]*\) => \([^ ]*\).*/\1 => \2 x/p')

# Run from the bundle without LD_LIBRARY_PATH where patchelf is at hand (DT_RPATH, unlike
# DT_RUNPATH, also serves the bundled libraries' own dependencies); the launchers set
# LD_LIBRARY_PATH either way, for the CUDA libraries.
if command -v patchelf > /dev/null; then
  for f in "${elf_files[@]}"; do patchelf --force-rpath --set-rpath '$ORIGIN/../lib' "$out/bin/$f"; done
  for lib in "$out"/lib/*; do patchelf --force-rpath --set-rpath '$ORIGIN' "$lib"; done
  rpath_note="rpath \$ORIGIN/../lib (patchelf)"
else
  rpath_note="no patchelf here: the launchers set LD_LIBRARY_PATH"
fi

if [ -n "$data" ]; then
  mkdir -p "$out/data"
  cp -r "$data" "$out/data/"
fi

# The newest glibc symbol version the binaries and bundled libraries need: the GPU machine's
# glibc must be at least that new.
glibc=$(objdump -T "$out"/bin/* "$out"/lib/* 2> /dev/null | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
glibc=${glibc#GLIBC_}

# env.sh: sourced by every launcher. Written with a quoted here-document (nothing expanded now)
# after the lines that record the CUDA libraries the binaries need and the glibc they need.
echo "needed=\"${needed_cuda[*]}\"  # the CUDA libraries the bundled binaries load" > "$out/env.sh"
echo "glibc_needed=\"$glibc\"  # the newest glibc symbol version the bundle uses" >> "$out/env.sh"
cat >> "$out/env.sh" << 'END_OF_ENV'
# A glibc older than the bundle's would fail at load time with a loader message; say it plainly.
glibc_here=$(getconf GNU_LIBC_VERSION 2> /dev/null | awk '{print $2}')
if [ -n "$glibc_needed" ] && [ -n "$glibc_here" ] &&
   [ "$(printf '%s\n%s\n' "$glibc_needed" "$glibc_here" | sort -V | head -1)" != "$glibc_needed" ]; then
  echo "runner bundle: needs glibc >= $glibc_needed, this machine has $glibc_here: build the bundle on a distribution with an older glibc" >&2
  exit 127
fi
# Sourced by the bundle's launchers: the bundled libraries first, then cuDNN and cuBLAS from this
# machine ($RUNNER_CUDA_LIBS, the Python environment's nvidia packages, /usr/local/cuda), and the
# bundled schemas. Made by scripts/gpu_bundle.sh.
bundle=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dirs=()
add() { for d in "$@"; do if [ -d "$d" ]; then dirs+=("$d"); fi; done; }
if [ -n "${RUNNER_CUDA_LIBS:-}" ]; then
  IFS=: read -ra extra <<< "$RUNNER_CUDA_LIBS"
  add "${extra[@]}"
fi
python=${PYTHON:-python3}
if command -v "$python" > /dev/null; then
  while read -r package_dir; do
    for d in "$package_dir"/*/lib; do add "$d"; done
  done < <("$python" -c 'import nvidia; print("\n".join(nvidia.__path__))' 2> /dev/null || true)
fi
add /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/lib/x86_64-linux-gnu
missing=()
for soname in $needed; do
  found=0
  for d in "${dirs[@]}"; do if [ -e "$d/$soname" ]; then found=1; break; fi; done
  if [ $found = 0 ]; then missing+=("$soname"); fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "runner bundle: ${missing[*]} not found in: ${dirs[*]:-(no folder)}" >&2
  echo "  install cuDNN 9 and cuBLAS for this CUDA version, or set RUNNER_CUDA_LIBS=/path/to/lib" >&2
  exit 127
fi
libs=$bundle/lib
for d in "${dirs[@]}"; do libs=$libs:$d; done
export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export RUNNER_SCHEMA_DIR="$bundle/schemas"
END_OF_ENV

for b in "${binaries[@]}"; do
  cat > "$out/$b" << END_OF_LAUNCHER
#!/usr/bin/env bash
# Runs the bundled $b with the libraries env.sh finds. Made by scripts/gpu_bundle.sh.
set -euo pipefail
source "\$(dirname "\${BASH_SOURCE[0]}")/env.sh"
exec "\$bundle/bin/$b" "\$@"
END_OF_LAUNCHER
  chmod +x "$out/$b"
done

if [ "$archive" = 1 ]; then
  tar -C "$(dirname "$out")" -cJf "$out.tar.xz" "$(basename "$out")"
fi

echo "bundle: $out"
echo "  bin/: ${binaries[*]}; lib/: $(ls "$out/lib" | wc -l) libraries ($(du -sh "$out/lib" | cut -f1));" \
     "schemas/, configs/, scripts/${data:+, data/}"
echo "  $rpath_note"
echo "  found on the GPU machine by env.sh: ${needed_cuda[*]:-(none: a CPU-only build)}"
echo "  needs glibc >= $glibc there (env.sh checks it)"
if [ "$archive" = 1 ]; then echo "  archive: $out.tar.xz ($(du -sh "$out.tar.xz" | cut -f1))"; fi
echo "run: $out/runner devices"
