replay
$DATA/deadlock_failed.csv
