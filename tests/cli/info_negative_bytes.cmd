info
$DATA/negative_bytes.csv
