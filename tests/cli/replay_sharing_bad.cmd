replay
$DATA/hosts.csv
--sharing
host
