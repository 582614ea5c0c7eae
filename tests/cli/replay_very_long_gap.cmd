replay
$DATA/very_long_gap.csv
