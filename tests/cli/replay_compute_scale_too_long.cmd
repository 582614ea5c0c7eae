replay
$DATA/long_gap.csv
--compute-scale
2
