# The partitioned message pairs with the partitioned receive, the 4 bytes with the Recv: no
# finding (without the mark the Recv would take the 1 MiB).
check
$DATA/partitioned.csv
