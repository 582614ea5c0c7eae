# Counts by hand (examples/halo.csv: ranks 0,1 in module 0 and 2,3 in module 1; each of 3
# iterations: a 64 KiB send to each ring neighbour, an 8-byte allreduce, which MPICH does by
# recursive doubling, partners r^1 then r^2). Recorded: halo crossings 1<->2 and 3<->0, 4 per
# iteration, 12; allreduce round 2 (0<->2, 1<->3) 4 per call, 12: 24 crossings of 48
# messages (24 halo, 3 x 8 allreduce), 24 x 65536 + 24 x 8 = 1573056 bytes. msa: the
# allreduce reduces to the module leaders 0 and 2, which exchange (2 crossings), then
# broadcasts: 3 x 6 messages, 6 crossings, 42 messages and 18 crossings. cyclic (rank r on
# node r mod 2, node n in module n): every halo message crosses (24), the allreduce only in
# round 1 (0<->1, 2<->3: 4 per call, 12): 36.
replay
$EXAMPLES/halo.csv
--compare
coll:all=msa
--compare
map:cyclic
--compare
eager:0
--csv
$WORK/w.csv
