gateways
$DATA/max_bytes.csv
