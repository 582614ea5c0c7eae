calibrate
--from
$DATA/one_rank_barrier.csv
