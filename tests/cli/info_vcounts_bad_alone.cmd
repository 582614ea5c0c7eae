info
$DATA/vcounts_bad_alone.csv
