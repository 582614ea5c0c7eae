info
$DATA/hosts_bad_name.csv
