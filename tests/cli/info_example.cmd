info
$EXAMPLES/halo.csv
