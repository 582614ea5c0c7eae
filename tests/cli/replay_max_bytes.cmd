replay
$DATA/max_bytes.csv
