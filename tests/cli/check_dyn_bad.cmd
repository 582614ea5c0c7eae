check
$DATA/check_dyn_bad.csv
