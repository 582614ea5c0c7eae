profile
$DATA/max_bytes.csv
