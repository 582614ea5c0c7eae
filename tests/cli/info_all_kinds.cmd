info
$DATA/all_kinds.csv
