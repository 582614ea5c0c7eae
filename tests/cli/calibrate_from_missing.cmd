calibrate
--from
$WORK/none.csv
