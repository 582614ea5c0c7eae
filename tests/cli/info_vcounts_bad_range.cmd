info
$DATA/vcounts_bad_range.csv
