info
$DATA/hosts_twice.csv
