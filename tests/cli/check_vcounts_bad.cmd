check
$DATA/check_vcounts_bad.csv
