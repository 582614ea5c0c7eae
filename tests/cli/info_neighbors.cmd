info
$DATA/neighbors.csv
