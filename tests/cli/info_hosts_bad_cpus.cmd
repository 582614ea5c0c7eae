info
$DATA/hosts_bad_cpus.csv
