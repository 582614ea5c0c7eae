check
$DATA/deadlock_recv3.csv
