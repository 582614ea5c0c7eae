check
$DATA/check_vcounts_equal.csv
