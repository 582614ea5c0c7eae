profile
$DATA/many_ranks.csv
