info
--bogus
$EXAMPLES/halo.csv
