info
$DATA/max_bytes.csv
