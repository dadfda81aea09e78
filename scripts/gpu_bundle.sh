#!/usr/bin/env bash
# Packs a built runner for a GPU machine that has no apt and no internet: the binaries (stripped),
# the non-CUDA shared libraries they need (from ldd), schemas/, configs/, the scripts the GPU
# check and the benchmarks run, and launchers that find cuDNN and cuBLAS on that machine (its
# CUDA toolkit or its Python's nvidia packages). scripts/gpu_check.sh prepare calls it.
#
# Usage: scripts/gpu_bundle.sh [--build DIR] [--out DIR] [--data DIR] [--tests] [--compress]
#                              [--archive]
#   --build DIR   the build folder holding `runner` (default: build)
#   --out DIR     the bundle folder to (re)create (default: BUILD/runner-gpu)
#   --data DIR    also copy a dataset folder into the bundle's data/ (e.g. Fashion-MNIST); with
#                 --compress its .gz files are stored gunzipped (xz packs the raw bytes better)
#   --tests       also bundle BUILD/backend_tests with its own launcher and the golden files its
#                 tests read (tests/backends/*.json)
#   --compress    pack bin/, lib/ and data/ into payload.tar.xz (xz -9), which the launchers
#                 unpack into OUT/payload/ the first time they run
#   --archive     also write OUT.tar.xz next to the bundle folder
# On the GPU machine: OUT/runner devices (or tar xf runner-gpu.tar.xz first)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
out=""
data=""
tests=0
compress=0
archive=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --tests) tests=1; shift ;;
    --compress) compress=1; shift ;;
    --archive) archive=1; shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
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
# The scripts the GPU check (scripts/gpu_check.sh run) and the benchmark suite run there, and the
# plot scripts the runner calls (from $RUNNER_SOURCE_DIR, which env.sh sets to the bundle).
mkdir -p "$out/scripts"
for s in bench.py bench.sh gpu_check.sh gpu_check_summary.py load_checkpoint.py peer_settings.py \
         plot_run.py plot_sweep.py pytorch_lenet.py pytorch_peer.py synthetic_data.py; do
  cp "$root/scripts/$s" "$out/scripts/"
done
if [ "$tests" = 1 ]; then  # the golden files backend_tests reads (tests/test_support.h)
  mkdir -p "$out/tests/backends"
  cp "$root"/tests/backends/*.json "$out/tests/backends/"
fi

# The shared libraries the binaries load, from ldd: the CUDA ones (found on the GPU machine) into
# needed_cuda, the rest into bundled (soname -> path here). $1: folders searched first (stubs).
needed_cuda=()
declare -A bundled=()
list_libraries() {
  needed_cuda=()
  bundled=()
  local name path
  while read -r name _ path _; do
    if [[ $name =~ $cuda_lib ]]; then
      [[ " ${needed_cuda[*]} " == *" $name "* ]] || needed_cuda+=("$name")
    elif [[ ! $name =~ $system_lib ]]; then
      if [ ! -f "$path" ]; then
        echo "gpu_bundle: $name is not found on this machine (ldd: $path)" >&2
        exit 1
      fi
      bundled[$name]=$path
    fi
  done < <(for f in "${elf_files[@]}"; do LD_LIBRARY_PATH=$1 ldd "$build/$f"; done |
           sed -n 's/^[[:space:]]*\([^ ]*\) => \([^ ]*\).*/\1 => \2 x/p')
}
list_libraries ""

# Libraries that are big with what they load and that the GPU machine never gets to use give
# way to stubs, libraries of the same name whose calls fail:
# - libcurl, with its TLS, Kerberos, LDAP and SSH libraries (about 3.5 MB packed): it only
#   downloads datasets, and the GPU machine has no internet;
# - libarchive, with libxml2, ICU (libicudata: 31 MB of tables) and its compressors (about
#   1.5 MB packed without ICU): it only unpacks what was downloaded;
# - ICU's libicuuc, where something else still links libxml2: libxml2 converts character sets
#   glibc's iconv lacks with it, in XML, which the runner never reads; the stub's ucnv_open
#   fails (U_UNSUPPORTED_ERROR), which libxml2 reports as an unsupported encoding.
# A stub is made only where everything imported from the library is a function it defines (else
# the real library is bundled and the summary says why); ldd then lists what is left to bundle.
stubs=$(mktemp -d)
trap 'rm -rf "$stubs"' EXIT
stub_notes=()
# imports_from SONAME EXCLUDE: the symbols the other bundled files (not matching EXCLUDE) and ours
# import that the real library defines.
imports_from() {
  local defined
  defined=$(nm -D --defined-only "${bundled[$1]}" | awk '{print $NF}' | sed 's/@.*//' | sort -u)
  for name in "${!bundled[@]}"; do
    if [[ ! $name =~ $2 ]]; then echo "${bundled[$name]}"; fi
  done | { cat; for f in "${elf_files[@]}"; do echo "$build/$f"; done; } |
    xargs nm -D --undefined-only 2> /dev/null | awk '{print $NF}' | sed 's/@.*//' | sort -u |
    comm -12 - <(echo "$defined")
}
# stub SONAME EXCLUDE WHAT: compiles the C source on stdin (its functions named on its
# "/* defines: ... */" line) into $stubs/SONAME, with the real library's symbol version.
stub() {
  local soname=$1 source imported defines unknown version_node flags=()
  source=$(cat)
  imported=$(imports_from "$soname" "$2")
  defines=$(sed -n 's|.*/\* defines: \(.*\) \*/.*|\1|p' <<< "$source" | tr ' ' '\n' | sort -u)
  unknown=$(comm -23 <(echo "$imported") <(echo "$defines") | grep . | tr '\n' ' ' || true)
  if [ -n "$unknown" ] || ! command -v "${CC:-cc}" > /dev/null; then
    stub_notes+=("$soname bundled: ${unknown:+it is asked for $unknown}${unknown:-no C compiler}")
    return
  fi
  version_node=$(objdump -T "${bundled[$soname]}" | awk -v s="$(head -1 <<< "$imported")" \
                 '$NF == s {print $(NF-1)}' | tr -d '()' | head -1)
  if [ -n "$version_node" ] && [ "$version_node" != Base ]; then
    echo "$version_node { global: *; };" > "$stubs/$soname.map"
    flags=(-Wl,--version-script,"$stubs/$soname.map")
  fi
  echo "$source" > "$stubs/$soname.c"
  "${CC:-cc}" -shared -fPIC -O2 -Wl,-soname,"$soname" "${flags[@]}" -o "$stubs/$soname" \
    "$stubs/$soname.c"
  stub_notes+=("$soname: a stub ($3)")
}
curl=$(printf '%s\n' "${!bundled[@]}" | grep '^libcurl\.so\.' || true)
if [ -n "$curl" ]; then
  stub "$curl" '^libcurl\.' "downloads fail: the GPU machine has no internet" << 'END_OF_STUB'
/* A stand-in for libcurl made by scripts/gpu_bundle.sh: every download fails. */
/* defines: curl_global_init curl_easy_init curl_easy_cleanup curl_easy_perform curl_easy_setopt curl_easy_strerror */
#include <stddef.h>
int curl_global_init(long flags) { return 2; /* CURLE_FAILED_INIT */ }
void* curl_easy_init(void) { return NULL; }
void curl_easy_cleanup(void* handle) {}
int curl_easy_perform(void* handle) { return 2; }
int curl_easy_setopt(void* handle, int option, ...) { return 2; }
const char* curl_easy_strerror(int code) { return "no downloads from this runner bundle"; }
END_OF_STUB
fi
archive=$(printf '%s\n' "${!bundled[@]}" | grep '^libarchive\.so\.' || true)
if [ -n "$archive" ]; then
  stub "$archive" '^libarchive\.' "unpacking downloads fails: there are none" << 'END_OF_STUB'
/* A stand-in for libarchive made by scripts/gpu_bundle.sh: no archive opens. */
/* defines: archive_read_new archive_read_free archive_read_support_filter_all archive_read_support_format_all archive_read_open_filename archive_error_string archive_read_next_header archive_read_data archive_entry_pathname archive_entry_filetype */
#include <stddef.h>
static char handle;
void* archive_read_new(void) { return &handle; }
int archive_read_free(void* archive) { return 0; }
int archive_read_support_filter_all(void* archive) { return 0; }
int archive_read_support_format_all(void* archive) { return 0; }
int archive_read_open_filename(void* archive, const char* name, size_t block) {
  return -30; /* ARCHIVE_FATAL */
}
const char* archive_error_string(void* archive) {
  return "archives are not read by this runner bundle";
}
int archive_read_next_header(void* archive, void** entry) { return -30; }
long archive_read_data(void* archive, void* buffer, size_t size) { return -30; }
const char* archive_entry_pathname(void* entry) { return ""; }
unsigned archive_entry_filetype(void* entry) { return 0; }
END_OF_STUB
fi
# ICU's converters: only where libxml2 is still bundled (libarchive's stub needs none).
list_libraries "$stubs"
icu=$(printf '%s\n' "${!bundled[@]}" | grep '^libicuuc\.so\.' || true)
if [ -n "$icu" ]; then
  v=${icu#libicuuc.so.}
  stub "$icu" '^libicu' "no ICU converters; libicudata left out" << END_OF_STUB
/* A stand-in for $icu made by scripts/gpu_bundle.sh: no converters. */
/* defines: ucnv_open_$v ucnv_close_$v ucnv_convertEx_$v ucnv_setToUCallBack_$v ucnv_setFromUCallBack_$v UCNV_TO_U_CALLBACK_STOP_$v UCNV_FROM_U_CALLBACK_STOP_$v */
void* ucnv_open_$v(const char* name, int* error) {
  if (error && *error <= 0) *error = 16; /* U_UNSUPPORTED_ERROR */
  return 0;
}
void ucnv_close_$v(void* converter) {}
void ucnv_convertEx_$v(void) {}
void ucnv_setToUCallBack_$v(void) {}
void ucnv_setFromUCallBack_$v(void) {}
void UCNV_TO_U_CALLBACK_STOP_$v(void) {}
void UCNV_FROM_U_CALLBACK_STOP_$v(void) {}
END_OF_STUB
fi
list_libraries "$stubs"
for name in "${!bundled[@]}"; do
  if [[ ${bundled[$name]} == "$stubs"/* ]]; then  # a stub: ldd listed it, not the real one
    cp "${bundled[$name]}" "$out/lib/$name"
    unset "bundled[$name]"
  fi
done
for name in "${!bundled[@]}"; do cp -L "${bundled[$name]}" "$out/lib/$name"; done
# Symbols are for debuggers; the GPU machine gets the code only.
if command -v strip > /dev/null; then
  strip --strip-unneeded "$out"/bin/* "$out"/lib/* 2> /dev/null || true
fi

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
  if [ "$compress" = 1 ]; then
    find "$out/data" -name '*.gz' -exec gunzip {} +
  fi
fi

# The newest glibc symbol version the binaries and bundled libraries need: the GPU machine's
# glibc must be at least that new.
glibc=$(objdump -T "$out"/bin/* "$out"/lib/* 2> /dev/null | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
glibc=${glibc#GLIBC_}

lib_count=$(ls "$out/lib" | wc -l)
lib_size=$(du -sh "$out/lib" | cut -f1)
if [ "$compress" = 1 ]; then
  packed=(bin lib)
  if [ -d "$out/data" ]; then packed+=(data); fi
  tar -C "$out" -cf - "${packed[@]}" | xz -9 -T1 > "$out/payload.tar.xz"
  for p in "${packed[@]}"; do rm -rf "${out:?}/$p"; done
fi

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
# A compressed bundle (--compress) holds bin/, lib/ and data/ in payload.tar.xz: unpacked into
# payload/ on first use (again when the archive changes), with xz, else Python's tarfile.
home=$bundle
if [ -f "$bundle/payload.tar.xz" ]; then
  home=$bundle/payload
  stamp=$(stat -c '%s %Y' "$bundle/payload.tar.xz")
  if [ "$(cat "$home/.unpacked" 2> /dev/null)" != "$stamp" ]; then
    if ! unpacking=$(mktemp -d "$bundle/.payload.XXXXXX" 2> /dev/null); then
      echo "runner bundle: cannot write in $bundle to unpack payload.tar.xz: copy the bundle to a writable folder" >&2
      exit 127
    fi
    if command -v xz > /dev/null; then
      xz -dc "$bundle/payload.tar.xz" | tar -C "$unpacking" -xf -
    else
      "${PYTHON:-python3}" -c 'import sys, tarfile
t = tarfile.open(sys.argv[1])
t.extractall(sys.argv[2], **({"filter": "fully_trusted"} if hasattr(tarfile, "data_filter") else {}))' \
        "$bundle/payload.tar.xz" "$unpacking"
    fi || { rm -rf "$unpacking"; echo "runner bundle: could not unpack $bundle/payload.tar.xz" >&2; exit 127; }
    echo "$stamp" > "$unpacking/.unpacked"
    rm -rf "$home"
    mv -T "$unpacking" "$home" 2> /dev/null || rm -rf "$unpacking"  # another launcher was first
  fi
fi
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
libs=$home/lib
for d in "${dirs[@]}"; do libs=$libs:$d; done
export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export RUNNER_SCHEMA_DIR="$bundle/schemas"
# The root that the tests' golden files and the runner's plot scripts are found under.
export RUNNER_SOURCE_DIR="$bundle"
END_OF_ENV

for b in "${binaries[@]}"; do
  cat > "$out/$b" << END_OF_LAUNCHER
#!/usr/bin/env bash
# Runs the bundled $b with the libraries env.sh finds. Made by scripts/gpu_bundle.sh.
set -euo pipefail
source "\$(dirname "\${BASH_SOURCE[0]}")/env.sh"
exec "\$home/bin/$b" "\$@"
END_OF_LAUNCHER
  chmod +x "$out/$b"
done

if [ "$archive" = 1 ]; then
  tar -C "$(dirname "$out")" -cJf "$out.tar.xz" "$(basename "$out")"
fi

echo "bundle: $out ($(du -sh "$out" | cut -f1))"
echo "  bin/: ${binaries[*]}${needed_cuda[*]:+ $plugin}; lib/: $lib_count libraries ($lib_size);" \
     "schemas/, configs/, scripts/${data:+, data/}"
if [ "$compress" = 1 ]; then
  echo "  payload.tar.xz: bin/, lib/${data:+, data/} ($(du -sh "$out/payload.tar.xz" | cut -f1)), unpacked by the launchers"
fi
for note in "${stub_notes[@]}"; do echo "  $note"; done
echo "  $rpath_note"
echo "  found on the GPU machine by env.sh: ${needed_cuda[*]:-(none: a CPU-only build)}"
echo "  needs glibc >= $glibc there (env.sh checks it)"
if [ "$archive" = 1 ]; then echo "  archive: $out.tar.xz ($(du -sh "$out.tar.xz" | cut -f1))"; fi
echo "run: $out/runner devices"
