replay
$DATA/one_rank_allreduce.csv
--model
$DATA/calls.conf
