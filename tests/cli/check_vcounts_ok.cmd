check
$DATA/vcounts.csv
