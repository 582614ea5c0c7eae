replay
$DATA/deadlock_cut_short.csv
