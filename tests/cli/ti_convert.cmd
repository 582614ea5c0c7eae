convert
$DATA/ti/small.csv
--to
ti
$WORK/small.ti
