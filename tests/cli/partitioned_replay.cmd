# Each message to its own receive: the Recv gets the 4 bytes early, the partitioned receive
# the 1 MiB (without the mark the Recv would wait for the 1 MiB).
replay
$DATA/partitioned.csv
