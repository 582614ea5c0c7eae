#!/bin/sh
# otf2-print (the OTF2 project's own reader) must read an archive written by
# 'retrace convert', and see what we wrote: every event, the peers, the bytes, the
# collective, the connection-type attribute, and the machine > module > node tree.
# usage: print_check.sh RETRACE EXAMPLE.csv WORKDIR
set -eu
retrace=$1 example=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$retrace" convert "$example" --to otf2 "$work/a" || fail "convert exited $?"
otf2-print "$work/a/traces.otf2" > "$work/events.txt" 2> "$work/stderr.txt" ||
    fail "otf2-print exited $?: $(cat "$work/stderr.txt")"
[ ! -s "$work/stderr.txt" ] || fail "otf2-print complained: $(cat "$work/stderr.txt")"

count() { grep -c -E "$1" "$work/events.txt" || true; }
[ "$(count '^(ENTER|LEAVE) ')" = 160 ] || fail "expected 160 ENTER/LEAVE, got $(count '^(ENTER|LEAVE) ')"
[ "$(count '^MPI_ISEND ')" = 24 ] || fail "expected 24 MPI_ISEND"
[ "$(count '^MPI_IRECV ')" = 24 ] || fail "expected 24 MPI_IRECV"
[ "$(count '^MPI_COLLECTIVE_END ')" = 12 ] || fail "expected 12 MPI_COLLECTIVE_END"
[ "$(count 'Length: 65536')" = 48 ] || fail "expected 48 messages of 65536 bytes"
# rank 0 sends to rank 1 (same node: shm = 2) and to rank 3 (other module: gw = 4)
grep -q -E '^MPI_ISEND +0 +235900 +Receiver: 1 .*Tag: 0, Length: 65536, Request: 3' \
    "$work/events.txt" || fail "rank 0's first isend is not as written"
grep -A1 -E '^MPI_ISEND +0 +237600 ' "$work/events.txt" | grep -q '"retrace::contype" <0>; UINT8; 4' ||
    fail "rank 0's send to rank 3 does not carry contype gw (4)"
grep -q -E '^MPI_COLLECTIVE_END .*Operation: ALLREDUCE, Communicator: "MPI_COMM_WORLD" <0>, Root: NONE, Sent: 8, Received: 8' \
    "$work/events.txt" || fail "no allreduce of 8 bytes"

otf2-print -G "$work/a/traces.otf2" > "$work/defs.txt" 2>&1 || fail "otf2-print -G exited $?"
[ "$(grep -c -E '^SYSTEM_TREE_NODE .*Class: "module"' "$work/defs.txt")" = 2 ] ||
    fail "expected 2 modules in the system tree"
[ "$(grep -c -E '^SYSTEM_TREE_NODE .*Class: "node"' "$work/defs.txt")" = 2 ] ||
    fail "expected 2 nodes in the system tree"
grep -q -E '^LOCATION_GROUP +3 .*Parent: "node::node 1"' "$work/defs.txt" ||
    fail "rank 3 is not on node 1"
echo "otf2-print read the archive: 280 events, 2 modules, 2 nodes"
