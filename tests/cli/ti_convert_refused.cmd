convert
$DATA/ti/subcomm.csv
--to
ti
$WORK/out.ti
