#!/bin/sh
# A synthetic CSV trace for tests/sim/fast_same.sh: P ranks on NODES nodes and MODULES
# modules (block placement), ITERS iterations of a ring exchange (Isend/Irecv both ways,
# Waitall) followed by collectives of every family at eager and rendezvous sizes on world
# and on the even ranks, a nonblocking allreduce overlapping computation and, with OVERLAP=1,
# a rendezvous Isend still in flight across an allreduce. Computation gaps vary by rank and
# iteration, with iterations where every rank has the same gaps (equal times everywhere).
# usage: gen_colls.sh P NODES MODULES ITERS OVERLAP > trace.csv
p=$1 nodes=$2 modules=$3 iters=$4 overlap=$5
awk -v p="$p" -v nodes="$nodes" -v modules="$modules" -v iters="$iters" -v ov="$overlap" '
function node(r) { return int(r * nodes / p) }
function module(r) { return int(node(r) * modules / nodes) }
function ct(a, b) { return module(a) != module(b) ? "gw" : node(a) == node(b) ? "shm" : "net" }
function gap(r, it) { return it % 3 == 0 ? 500 : 300 + ((r * 7 + it * 13) % 5) * 150 }
function ev(kind, call, comm, peer, tag, bytes, rbytes, contype, req, op) {
    printf "%d,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", r, t, kind, call, comm, peer, tag, bytes,
           rbytes, contype, req, op
    t += 10
}
function coll(call, comm, root, bytes, rbytes, op) {
    t += gap(r, it)
    ev("enter", call); ev("coll_begin", call)
    ev("coll_end", call, comm, root, "", bytes, rbytes, "", "", op)
    ev("leave", call)
}
BEGIN {
    print "ranks," p
    for (r = 0; r < p; r++)
        print "proc," r "," node(r) "," module(r)
    ne = int((p + 1) / 2)
    members = ""
    for (r = 0; r < p; r += 2)
        members = members (r ? " " : "") r
    if (p >= 2)
        print "comm,2,0,even ranks," members
    split("8 4096 200000", ar, " ")
    split("8 1000 40000", ag, " ")
    split("4 512 70000", aa, " ")
    for (r = 0; r < p; r++) {
        t = 1000 + (r % 4) * 100
        req = 1
        for (it = 0; it < iters; it++) {
            k = it % 3 + 1
            n = it % 2 ? 70000 : 100
            right = (r + 1) % p; left = (r + p - 1) % p
            t += gap(r, it)
            ev("enter", "MPI_Isend"); ev("isend", "MPI_Isend", 0, right, 1, n, "", ct(r, right), req); ev("leave", "MPI_Isend")
            ev("enter", "MPI_Isend"); ev("isend", "MPI_Isend", 0, left, 2, n, "", ct(r, left), req + 1); ev("leave", "MPI_Isend")
            ev("enter", "MPI_Irecv"); ev("irecv_request", "MPI_Irecv", "", "", "", "", "", "", req + 2); ev("leave", "MPI_Irecv")
            ev("enter", "MPI_Irecv"); ev("irecv_request", "MPI_Irecv", "", "", "", "", "", "", req + 3); ev("leave", "MPI_Irecv")
            ev("enter", "MPI_Waitall")
            ev("isend_complete", "MPI_Waitall", "", "", "", "", "", "", req)
            ev("isend_complete", "MPI_Waitall", "", "", "", "", "", "", req + 1)
            ev("irecv", "MPI_Waitall", 0, left, 1, n, "", ct(r, left), req + 2)
            ev("irecv", "MPI_Waitall", 0, right, 2, n, "", ct(r, right), req + 3)
            ev("leave", "MPI_Waitall")
            req += 4
            if (ov && it % 2) { # a rendezvous send to the right still in flight
                t += gap(r, it)
                ev("enter", "MPI_Isend"); ev("isend", "MPI_Isend", 0, right, 3, 300000, "", ct(r, right), req); ev("leave", "MPI_Isend")
                ev("enter", "MPI_Irecv"); ev("irecv_request", "MPI_Irecv", "", "", "", "", "", "", req + 1); ev("leave", "MPI_Irecv")
            }
            coll("MPI_Allreduce", 0, "", ar[k], ar[k], "allreduce")
            if (ov && it % 2) {
                t += gap(r, it)
                ev("enter", "MPI_Waitall")
                ev("isend_complete", "MPI_Waitall", "", "", "", "", "", "", req)
                ev("irecv", "MPI_Waitall", 0, left, 3, 300000, "", ct(r, left), req + 1)
                ev("leave", "MPI_Waitall")
                req += 2
            }
            coll("MPI_Barrier", 0, "", 0, 0, "barrier")
            coll("MPI_Allgather", 0, "", ag[k], ag[k] * p, "allgather")
            coll("MPI_Alltoall", 0, "", aa[k] * p, aa[k] * p, "alltoall")
            coll("MPI_Reduce_scatter_block", 0, "", ag[k] * p, ag[k], "reduce_scatter_block")
            coll("MPI_Reduce_scatter", 0, "", ag[k] * p, ag[k], "reduce_scatter")
            root = it % p
            coll("MPI_Bcast", 0, root, r == root ? ar[k] : 0, r == root ? 0 : ar[k], "bcast")
            coll("MPI_Reduce", 0, root, ar[k], r == root ? ar[k] : 0, "reduce")
            coll("MPI_Scan", 0, "", ar[k], ar[k], "scan")
            if (r % 2 == 0) {
                coll("MPI_Allreduce", 2, "", ar[k], ar[k], "allreduce")
                coll("MPI_Allgather", 2, "", ag[k], ag[k] * ne, "allgather")
                coll("MPI_Barrier", 2, "", 0, 0, "barrier")
            }
            t += gap(r, it)
            ev("enter", "MPI_Iallreduce"); ev("nbc_request", "MPI_Iallreduce", "", "", "", "", "", "", req); ev("leave", "MPI_Iallreduce")
            t += 5000
            ev("enter", "MPI_Wait"); ev("nbc_complete", "MPI_Wait", 0, "", "", ar[k], ar[k], "", req, "allreduce"); ev("leave", "MPI_Wait")
            req++
        }
    }
}'
