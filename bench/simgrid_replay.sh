#!/bin/sh
# Replays a SimGrid time-independent (TI) trace with SimGrid's own replay (smpirun -replay)
# on the machine retrace's default model describes: one host per rank, every host with a
# private full-duplex link of 0.75 us and 12.5 GB/s, so that a message between two hosts
# sees retrace's `net` link (1.5 us, 12.5 GB/s; docs/model.md), and no contention between
# pairs (no backbone). SMPI's latency and bandwidth correction factors are set to 1 and the
# TCP cross-traffic model is off: plain alpha-beta, as in retrace. Hosts compute at
# RETRACE_TI_FLOPS flop/s (default 1e9), the rate that retrace's TI writer turned time into
# `compute` flops with.
#
# usage: bench/simgrid_replay.sh INDEX RANKS      (e.g. retrace convert t.csv --to ti t.ti)
# Prints the wall-clock seconds of the smpirun run, SimGrid's own time for the simulation
# proper (after parsing and platform setup), the simulated time, and, when GNU time is at
# /usr/bin/time, the CPU seconds (user and system, the child processes included) and the
# peak resident set size. Exit status 77 when SimGrid is not installed.
set -eu
if [ $# -ne 2 ]; then
    echo "usage: $0 INDEX RANKS" >&2
    exit 2
fi
index=$1 ranks=$2
if ! command -v smpirun >/dev/null 2>&1; then
    echo "$0: smpirun not found: SimGrid is not installed (Debian: apt-get install libsimgrid-dev)" >&2
    exit 77
fi
case $ranks in '' | *[!0-9]* | 0) echo "$0: RANKS must be a positive integer" >&2; exit 2 ;; esac
[ -f "$index" ] || { echo "$0: $index: no such file" >&2; exit 2; }
flops=${RETRACE_TI_FLOPS:-1e9}

work=$(mktemp -d "${TMPDIR:-/tmp}/simgrid_replay.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
cat > "$work/platform.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="retrace" prefix="node-" suffix="" radical="0-$((ranks - 1))" speed="${flops}f"
           bw="12.5GBps" lat="0.75us" sharing_policy="SPLITDUPLEX"/>
</platform>
XML
awk -v n="$ranks" 'BEGIN { for (i = 0; i < n; i++) printf "node-%d\n", i }' > "$work/hosts.txt"

# SimGrid opens the per-rank files the index names relative to its working directory;
# retrace writes them relative to the index.
cd "$(dirname "$index")"
set -- smpirun -np "$ranks" -platform "$work/platform.xml" -hostfile "$work/hosts.txt" \
    -replay "$(basename "$index")" \
    --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 --cfg=network/crosstraffic:0 \
    --cfg=smpi/display-timing:yes
timer=
[ -x /usr/bin/time ] && timer="/usr/bin/time -f %M_%U_%S -o $work/rss"
start=$(date +%s.%N)
status=0
$timer "$@" > "$work/log" 2>&1 || status=$?
end=$(date +%s.%N)
if [ $status -ne 0 ]; then
    echo "$0: smpirun failed (exit status $status):" >&2
    tail -n 20 "$work/log" >&2
    exit 1
fi
sim=$(sed -n 's/.*Simulated time: \([0-9.e+-]*\) seconds.*/\1/p' "$work/log")
engine=$(sed -n 's/^The simulation took \([0-9.e+-]*\) seconds.*/\1/p' "$work/log")
if [ -z "$sim" ]; then
    echo "$0: no simulated time in SimGrid's output:" >&2
    tail -n 20 "$work/log" >&2
    exit 1
fi
echo "command          $*"
awk -v s="$start" -v e="$end" 'BEGIN { printf "wall_seconds     %.3f\n", e - s }'
echo "engine_seconds   $engine"
echo "simulated_time   $sim s"
if [ -s "$work/rss" ]; then
    tail -n 1 "$work/rss" | awk -F_ '{ printf "cpu_seconds      %.3f\npeak_rss_kib     %s\n", $2 + $3, $1 }'
fi
exit 0
