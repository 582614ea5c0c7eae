check
$DATA/deadlock_truncated.csv
