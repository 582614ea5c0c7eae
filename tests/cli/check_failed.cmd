check
$DATA/deadlock_failed.csv
