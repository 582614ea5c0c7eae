info
$DATA/vcounts_bad_side.csv
