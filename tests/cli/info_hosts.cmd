info
$DATA/hosts.csv
