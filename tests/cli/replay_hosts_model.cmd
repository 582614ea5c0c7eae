replay
$DATA/hosts.csv
--sharing
model
