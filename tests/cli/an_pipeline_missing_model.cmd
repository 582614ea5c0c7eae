pipeline
$DATA/an_small.csv
--model
$DATA/no_such.conf
