replay
$DATA/deadlock_wait_irecv.csv
