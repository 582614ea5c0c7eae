replay
$DATA/deadlock_truncated.csv
