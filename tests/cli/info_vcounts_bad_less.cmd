info
$DATA/vcounts_bad_less.csv
