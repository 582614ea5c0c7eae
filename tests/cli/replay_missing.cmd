replay
$WORK/missing.csv
