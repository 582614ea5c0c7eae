replay
$DATA/hosts.csv
