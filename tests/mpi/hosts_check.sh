#!/bin/sh
# mpi.hosts: the tracer records each rank's real host. Four ranks of mpi_p2p run under
# `taskset -c 0` (every rank may use CPU 0 only): retrace info names this host with 4 ranks
# on 1 of its online CPUs, the CSV form has a host line per rank, and the replay of the
# recorded run lets the four ranks take turns on that CPU, with a note saying so.
# usage: hosts_check.sh RETRACE WORK PROGRAM
set -u
[ $# = 3 ] || { echo "usage: hosts_check.sh RETRACE WORK PROGRAM" >&2; exit 2; }
retrace=$1 work=$2 prog=$3
rm -rf "$work" && mkdir -p "$work" || exit 2
cd "$work" || exit 2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# the name as the tracer keeps it: at most 64 bytes, other characters than letters, digits
# and -._ as _
host=$(hostname | cut -c 1-64 | tr -c 'A-Za-z0-9._\n-' '_')
online=$(getconf _NPROCESSORS_ONLN)
timeout -k 5 60 taskset -c 0 "$retrace" record --out t -- mpiexec.mpich -n 4 "$prog" \
    > out.txt 2> err.txt || fail "record: $(cat err.txt)"
"$retrace" info t > info.txt 2>&1 || fail "info: $(cat info.txt)"
grep -qx "hosts         1 (where the ranks ran)" info.txt || fail "info: $(cat info.txt)"
want=$(printf '  %-22s 4 ranks on 1 of %s online CPUs, time shared' "$host" "$online")
grep -qxF "$want" info.txt || fail "info, the host line: want '$want': $(cat info.txt)"
"$retrace" convert t t.csv > /dev/null 2>&1 || fail "convert"
grep '^host,' t.csv > hosts.txt
printf 'host,%s,%s,1,%s,0\n' 0 "$online" "$host" 1 "$online" "$host" 2 "$online" "$host" \
    3 "$online" "$host" > hosts.want
cmp -s hosts.want hosts.txt || fail "host lines: $(cat hosts.txt)"
"$retrace" replay t > replay.out 2> replay.err || fail "replay: $(cat replay.err)"
note="retrace: note: time sharing as recorded: 1 host had more ranks than the CPUs they could run on (up to 4 ranks on 1 CPU, the trace's hosts): their ranks run in turns of 4 ms (docs/replay.md)"
grep -qxF "$note" replay.err || fail "replay: no note on the time sharing: $(cat replay.err)"
"$retrace" replay t --sharing model > model.out 2> model.err || fail "replay --sharing model"
grep -q "time sharing" model.err && fail "replay --sharing model: $(cat model.err)"
[ "$fails" = 0 ] && echo "ok: $host, 4 ranks on CPU 0 of $online"
exit "$fails"
