info
$DATA/pending.csv
