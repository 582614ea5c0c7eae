# The two commands of the README, for a fresh Debian 12 machine:
#   make demo   install what is missing, build, record a bundled example program under
#               MPICH, analyse and replay its trace (a bundled trace when MPI cannot run)
#   make test   install what is missing, build, run every test (ctest)
# Other targets: deps (install only), build, clean, test-sanitize (CI): the unit and
# command-line tests built with AddressSanitizer and UBSan in build-san/, and test-fuzz (CI):
# the libFuzzer harnesses of tests/fuzz built with clang in build-fuzz/, each run over its
# seed corpus (bench/fuzz.sh fuzzes for longer).

BUILD ?= build
SAN_BUILD ?= build-san
FUZZ_BUILD ?= build-fuzz
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?= -DRETRACE_WERROR=ON -DRETRACE_REQUIRE_FORTRAN=ON

# Debian 12 packages retrace needs to build and test.
PACKAGES = build-essential cmake pkg-config mpich libmpich-dev libopen-trace-format2-dev \
           otf2-tools libcsv-dev gnuplot-nox libcmocka-dev clang-format gfortran
# ... Open MPI, installed where it can be (root or sudo): with it the tracer is built for Open
# MPI too and the MPI tests run under both MPIs; without it the Open MPI tests are skipped.
OPENMPI_PACKAGES = openmpi-bin libopenmpi-dev
# ... and real MPI applications Debian builds with Open MPI, recorded by the tests/apps tests.
APPS_PACKAGES = lammps hpcc
# ... and SimGrid, whose own replay (smpirun) reads the TI traces retrace writes (tests/simgrid).
SIMGRID_PACKAGES = libsimgrid-dev
# ... and what the fuzzing build needs besides (make test-fuzz).
FUZZ_PACKAGES = clang libclang-rt-14-dev

.PHONY: all deps build test test-sanitize test-fuzz demo clean

all: build

deps:
	@./.ci/install-deps $(PACKAGES)
	@./.ci/install-deps $(OPENMPI_PACKAGES) || \
	    echo "make: Open MPI not installed ($(OPENMPI_PACKAGES)): its tests will be skipped"
	@./.ci/install-deps $(APPS_PACKAGES) || \
	    echo "make: $(APPS_PACKAGES) not installed: the application tests will be skipped"
	@./.ci/install-deps $(SIMGRID_PACKAGES) || \
	    echo "make: $(SIMGRID_PACKAGES) not installed: the SimGrid test will be skipped"

# The main build also makes the tracer's bench build (libretrace-cost.so, RETRACE_TRACER_COST),
# so that mpi.tracer_components keeps it working.
$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS) -DRETRACE_TRACER_COST=ON

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# A finding fails its test: tests/CMakeLists.txt sets ASAN_OPTIONS, UBSAN_OPTIONS and
# LSAN_OPTIONS for every test of a -DRETRACE_SANITIZE=ON build.
test-sanitize: deps
	cmake -S . -B $(SAN_BUILD) $(CMAKE_FLAGS) -DRETRACE_SANITIZE=ON
	cmake --build $(SAN_BUILD) -j $(JOBS)
	cd $(SAN_BUILD) && ctest --output-on-failure -j $(JOBS) -L 'unit|cli'

# The harnesses under ASan and UBSan, each over its seed corpus once (seconds).
test-fuzz: deps
	@./.ci/install-deps $(FUZZ_PACKAGES)
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DRETRACE_FUZZ=ON
	cmake --build $(FUZZ_BUILD) -j $(JOBS)
	cd $(FUZZ_BUILD) && ctest --output-on-failure -j $(JOBS) -L fuzz

demo: build
	./$(BUILD)/retrace demo --out $(BUILD)/demo

clean:
	rm -rf $(BUILD) $(SAN_BUILD) $(FUZZ_BUILD)
