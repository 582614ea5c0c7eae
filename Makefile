# The two commands of the README, for a fresh Debian 12 machine:
#   make demo   install what is missing, build, run the demo on a bundled example
#   make test   install what is missing, build, run every test (ctest)
# Other targets: deps (install only), build, clean.

BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?= -DRETRACE_WERROR=ON

# Debian 12 packages retrace needs to build and test.
PACKAGES = build-essential cmake pkg-config mpich libmpich-dev libopen-trace-format2-dev \
           otf2-tools libcsv-dev gnuplot-nox libcmocka-dev clang-format

.PHONY: all deps build test demo clean

all: build

deps:
	@./.ci/install-deps $(PACKAGES)

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

demo: build
	./$(BUILD)/retrace demo --out $(BUILD)/demo

clean:
	rm -rf $(BUILD)
