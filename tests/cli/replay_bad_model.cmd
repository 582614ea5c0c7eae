replay
$DATA/an_small.csv
--model
$DATA/bad_model.conf
