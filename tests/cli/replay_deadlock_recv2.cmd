replay
$DATA/deadlock_recv2.csv
