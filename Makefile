# Entry points: `make demo` sets up and runs the Fashion-MNIST LeNet; `make test` runs the tests.
BUILD ?= build
JOBS ?= $(shell nproc)
PYTHON ?= /usr/bin/python3

DEBIAN_PACKAGES = build-essential cmake git pkg-config libdnnl-dev libyaml-cpp-dev nlohmann-json3-dev \
  libvalijson-dev libcli11-dev libfmt-dev libgtest-dev libgmock-dev libcurl4-openssl-dev \
  libarchive-dev libssl-dev zlib1g-dev dataset-fashion-mnist python3-matplotlib
BENCH_PACKAGES = python3-torch python3-numpy

.PHONY: deps setup build demo cifar test bench-deps bench bench-gpu format clean

# Installs the Debian packages the runner needs (as root, or through sudo).
deps:
	@missing=$$(for p in $(DEBIAN_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

$(BUILD)/Makefile:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

build: $(BUILD)/Makefile
	cmake --build $(BUILD) -j $(JOBS)

setup: deps build

# The quickstart: LeNet on Fashion-MNIST (offline), the PyTorch tutorial's settings.
demo: setup
	./$(BUILD)/runner configs/lenet_fashion_mnist.yaml

# The tutorial's own experiment: CIFAR-10 (downloaded once into data/).
cifar: setup
	./$(BUILD)/runner configs/lenet_cifar.yaml

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench-deps:
	@SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(BENCH_PACKAGES)

bench: build
	scripts/bench.sh

# The same suite on a GPU (cuda:0), from batch 4 to 4096: where the runner must beat PyTorch.
bench-gpu: build
	scripts/bench.sh --device cuda --batch-sizes 4 16 64 256 1024 4096 --widths 1 4

format:
	clang-format -i $$(git ls-files '*.cpp' '*.h')

clean:
	rm -rf $(BUILD)
