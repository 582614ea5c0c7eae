check
$WORK/none.csv
