info
$DATA/vcounts_bad_more.csv
