convert
$EXAMPLES/halo.csv
--to
