#!/bin/sh
# SimGrid's own replay (smpirun -replay, SimGrid 3.32) runs TI traces that retrace wrote,
# through bench/simgrid_replay.sh: the example halo exchange, the trace with every
# collective (tests/data/ti/roundtrip.csv) and the same with element sizes on its reductions
# (roundtrip_sizes.csv: their datatypes), and one message of 10^6 bytes, whose simulated
# time must be retrace's default net link's 1.5 us + 80 us. Skipped (exit 77) when SimGrid
# is not installed (Debian: libsimgrid-dev, which make deps installs where it can), unless
# RETRACE_REQUIRE_SIMGRID=1 (CI: cmake -DRETRACE_REQUIRE_SIMGRID=ON) makes that a failure.
# usage: replay_check.sh RETRACE SOURCE_DIR WORK
set -eu
retrace=$1 src=$2 work=$3
if ! command -v smpirun >/dev/null 2>&1; then
    if [ "${RETRACE_REQUIRE_SIMGRID:-0}" = 1 ]; then
        echo "FAIL: SimGrid's smpirun is not installed (Debian: apt-get install libsimgrid-dev)"
        exit 1
    fi
    echo "SKIP: SimGrid's smpirun is not installed (Debian: apt-get install libsimgrid-dev)"
    exit 77
fi
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

replay() { # CSV RANKS NAME: converts, replays, prints the simulated time in seconds
    "$retrace" convert "$1" --to ti "$work/$3.ti" || fail "retrace convert $1"
    "$retrace" info "$work/$3.ti" > /dev/null || fail "retrace cannot read back $work/$3.ti"
    sh "$src/bench/simgrid_replay.sh" "$work/$3.ti" "$2" > "$work/$3.out" ||
        fail "SimGrid's replay of $work/$3.ti"
    cat "$work/$3.out" >&2
    sed -n 's/^simulated_time *\([^ ]*\) s$/\1/p' "$work/$3.out"
}

t=$(replay "$src/examples/halo.csv" 4 halo)
awk -v t="$t" 'BEGIN { exit !(t > 0) }' || fail "halo: simulated time '$t'"
t=$(replay "$src/tests/data/ti/roundtrip.csv" 3 colls)
awk -v t="$t" 'BEGIN { exit !(t > 0) }' || fail "collectives: simulated time '$t'"
t=$(replay "$src/tests/data/ti/roundtrip_sizes.csv" 3 sized)
awk -v t="$t" 'BEGIN { exit !(t > 0) }' || fail "collectives with element sizes: simulated time '$t'"
t=$(replay "$src/tests/data/ti/oneway.csv" 2 oneway)
awk -v t="$t" 'BEGIN { d = t - 81.5e-6; if (d < 0) d = -d; exit !(d < 0.001 * 81.5e-6) }' ||
    fail "one message of 10^6 bytes: simulated $t s, expected 81.5e-6 s"
echo "ok: SimGrid replayed the TI traces retrace wrote (one message: $t s)"
