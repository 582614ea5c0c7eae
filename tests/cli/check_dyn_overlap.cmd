check
$DATA/check_dyn_overlap.csv
