info
$DATA/hosts_bad_count.csv
