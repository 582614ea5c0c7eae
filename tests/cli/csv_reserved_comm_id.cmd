info
$DATA/reserved_ids.csv
