convert
$EXAMPLES/halo.csv
--to
xml
$WORK/out
