info
$DATA/vcounts_bad_end.csv
