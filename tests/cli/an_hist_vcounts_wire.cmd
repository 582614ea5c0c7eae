# vcounts.csv's v collectives at wire level with their per-peer counts (MPICH's choices:
# alltoallv direct, gatherv and scatterv linear, allgatherv recursive doubling), worked out
# by hand: 49 messages; zero-byte blocks of alltoallv, gatherv and scatterv are messages
# too (10 + 2 of them under 16 bytes), the equal alltoallv's 12 of 16 bytes; no note.
hist
--level
wire
--min
16
--max
2K
$DATA/vcounts.csv
