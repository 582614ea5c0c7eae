replay
$DATA/self_barrier.csv
--model
$DATA/huge_timeslice.conf
