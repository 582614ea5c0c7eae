replay
$DATA/coll3.csv
--model
$DATA/many_gateways.conf
