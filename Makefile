# Entry points: `make demo` sets up and runs the Fashion-MNIST LeNet; `make test` runs the tests.
BUILD ?= build
JOBS ?= $(shell nproc)
PYTHON ?= /usr/bin/python3

# What the runner needs to build and run (make deps, make demo), without Debian's recommended
# extras (but ocl-icd-opencl-dev, which oneDNN's CMake files look for): 76 packages (87 MB) on a fresh Debian 12 where the whole set with its recommends was
# 490 (323 MB).
DEBIAN_PACKAGES = build-essential cmake ninja-build mold git pkg-config libdnnl-dev libyaml-cpp-dev \
  nlohmann-json3-dev libcli11-dev libfmt-dev libcurl4-openssl-dev libarchive-dev libssl-dev \
  zlib1g-dev libjpeg62-turbo-dev libspng-dev libwebp-dev libstb-dev libgoogle-perftools-dev \
  dataset-fashion-mnist ocl-icd-opencl-dev
# valijson is header-only, but Debian's libvalijson-dev depends on every library it has an adapter
# for (Qt, Poco, jsoncpp, ...: about 160 packages): unless it is installed, `make deps` unpacks the
# package's headers into .deps/valijson (CMake looks there after /usr/include).
VALIJSON_DIR = .deps/valijson
# What the test suite and the plot scripts add (make build, make test).
BUILD_TEST_PACKAGES = libgtest-dev libgmock-dev python3-matplotlib
# OpenBLAS: Debian's torch runs its CPU matrix products on whichever libblas.so.3 is installed,
# and the reference BLAS alone made the PyTorch peer up to 2x slower (LeNet) to 40x (ViT).
BENCH_PACKAGES = python3-torch python3-torchvision python3-numpy libopenblas0-pthread
# Only for the tests: the single-node Slurm cluster of tests/sweep/slurm_cluster_test.cpp
# (scripts/slurm_local_cluster.sh; users of a real cluster need none of it), the headless
# browser that opens the HTML pages (tests/html/browser_test.cpp); and, without their
# recommends, the independent checks of `runner export` (tests/cli/onnx_export_test.cpp: onnx's
# checker, OpenCV's dnn module).
TEST_PACKAGES = slurm-wlm munge chromium
EXPORT_TEST_PACKAGES = python3-onnx python3-opencv
# libFuzzer and the sanitizer runtimes of Debian 12's clang (14).
FUZZ_PACKAGES = clang libclang-rt-14-dev libfuzzer-14-dev
# One clang tree for the sanitizer tests and the fuzz targets: everything in it is built once with
# -fsanitize=address,undefined and libFuzzer's coverage instrumentation.
SANITIZE_BUILD ?= build-sanitize
FUZZ_SECONDS ?= 60
# FUZZ_RUNS=N stops each target after N inputs; FUZZ_SEED=S (not 0) makes the runs the same on any
# machine (tests/fuzz/run_fuzzer.sh): CI runs a seeded, counted campaign.
FUZZ_RUNS ?= -1
FUZZ_SEED ?= 0
# The libFuzzer targets (tests/fuzz/NAME_fuzzer.cpp), run one after another for FUZZ_SECONDS each.
FUZZ_TARGETS ?= config_fuzzer safetensors_fuzzer report_fuzzer

.PHONY: deps build-deps test-deps setup build build-runner demo cifar test check-sanitize fuzz-deps fuzz bench-deps bench \
  bench-gpu format format-check clean

# Installs those of the Debian packages $(1) that are missing (as root, or through sudo), with the
# apt-get options $(2).
define install_missing
	@missing=$$(for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(2) $$missing; \
	fi
endef

# Installs the Debian packages the runner needs, and valijson's headers.
deps:
	$(call install_missing,$(DEBIAN_PACKAGES),--no-install-recommends)
	@if [ ! -f /usr/include/valijson/validator.hpp ] && \
	    [ ! -f $(VALIJSON_DIR)/usr/include/valijson/validator.hpp ]; then \
	  mkdir -p $(VALIJSON_DIR) && cd $(VALIJSON_DIR) && \
	  { apt-get download -qq libvalijson-dev 2>/dev/null || \
	    { SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); $$SUDO apt-get update -qq && \
	      apt-get download -qq libvalijson-dev; }; } && \
	  dpkg-deb -x libvalijson-dev_*.deb . && rm -f libvalijson-dev_*.deb; \
	fi

# What the test suite adds: GoogleTest, and matplotlib for the plot scripts and their tests.
build-deps: deps
	$(call install_missing,$(BUILD_TEST_PACKAGES))

# The packages only the tests need (CI installs them; without them the Slurm, browser and ONNX
# export tests are skipped).
test-deps:
	$(call install_missing,$(TEST_PACKAGES))
	$(call install_missing,$(EXPORT_TEST_PACKAGES),--no-install-recommends)

# Ninja where it is installed (make deps installs it): it keeps both cores busy across targets.
GENERATOR = $(shell command -v ninja >/dev/null 2>&1 && echo -G Ninja)

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=Release

# A tree first configured without GoogleTest (make demo) is configured again once it is there.
build: build-deps $(BUILD)/CMakeCache.txt
	@if grep -q 'GTest_DIR:PATH=.*NOTFOUND' $(BUILD)/CMakeCache.txt; then \
	  cmake -S . -B $(BUILD); fi
	cmake --build $(BUILD) -j $(JOBS)

setup: deps build

# Only the runner (and the backends it opens), not the test suite: what the demo needs.
build-runner: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target runner

# The quickstart: LeNet on Fashion-MNIST (offline), the PyTorch tutorial's settings.
demo: build-runner
	./$(BUILD)/runner configs/lenet_fashion_mnist.yaml --html

# The tutorial's own experiment: CIFAR-10 (downloaded once into data/).
cifar: build-runner
	./$(BUILD)/runner configs/lenet_cifar.yaml

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

$(SANITIZE_BUILD)/CMakeCache.txt:
	cmake -S . -B $(SANITIZE_BUILD) $(GENERATOR) -DCMAKE_CXX_COMPILER=clang++ \
	  -DCMAKE_BUILD_TYPE=Release -DRUNNER_CUDA=OFF -DRUNNER_SANITIZE=ON -DRUNNER_FUZZ=ON

# The tests and a short training run built with AddressSanitizer and UndefinedBehaviorSanitizer
# (CPU backend, clang); fails on any finding (tests/sanitize/check.sh).
check-sanitize: build-deps fuzz-deps $(SANITIZE_BUILD)/CMakeCache.txt
	cmake --build $(SANITIZE_BUILD) -j $(JOBS)
	JOBS=$(JOBS) tests/sanitize/check.sh $(SANITIZE_BUILD)

fuzz-deps:
	$(call install_missing,$(FUZZ_PACKAGES))

# Fuzzes with libFuzzer, FUZZ_SECONDS per target: the config path (YAML -> JSON -> schema ->
# experiment -> graph), the safetensors reader and the report readers (tests/fuzz), built in the
# sanitizer tree. Every target runs; any crash, sanitizer report, leak, timeout or out-of-memory
# fails the whole.
fuzz: deps fuzz-deps $(SANITIZE_BUILD)/CMakeCache.txt
	cmake --build $(SANITIZE_BUILD) -j $(JOBS) --target $(FUZZ_TARGETS)
	@failed=; for target in $(FUZZ_TARGETS); do \
	  FUZZ_RUNS=$(FUZZ_RUNS) FUZZ_SEED=$(FUZZ_SEED) tests/fuzz/run_fuzzer.sh $(SANITIZE_BUILD)/$$target \
	    $(FUZZ_SECONDS) $(SANITIZE_BUILD)/fuzz-run/$$target || failed="$$failed $$target"; \
	done; \
	if [ -n "$$failed" ]; then echo "make fuzz: findings in:$$failed" >&2; exit 1; fi

bench-deps:
	@SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(BENCH_PACKAGES)

bench: build
	scripts/bench.sh

# The same suite on a GPU (cuda:0), from batch 4 to 4096: where the runner must beat PyTorch.
bench-gpu: build
	scripts/bench.sh --device cuda --batch-sizes 4 16 64 256 1024 4096 --widths 1 4

format:
	clang-format -i $$(git ls-files '*.cpp' '*.h' '*.cu')

# CI: every C++ and CUDA file as .clang-format says (Debian 12's clang-format 14).
format-check:
	$(call install_missing,clang-format)
	clang-format --dry-run -Werror $$(git ls-files '*.cpp' '*.h' '*.cu')

clean:
	rm -rf $(BUILD) $(SANITIZE_BUILD) .deps
