calibrate
--from
$DATA/pending.csv
