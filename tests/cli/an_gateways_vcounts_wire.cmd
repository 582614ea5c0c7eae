# vcounts.csv at wire level: 49 messages, 7648 bytes; across the gateway 32 messages and
# 3284 bytes (alltoallv and ialltoallv 1530 each, gatherv 24, scatterv 24, allgatherv 48,
# the equal alltoallv 8 x 16).
gateways
$DATA/vcounts.csv
--level
wire
