replay
$DATA/one_rank_barrier.csv
