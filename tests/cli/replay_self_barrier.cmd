replay
$DATA/self_barrier.csv
