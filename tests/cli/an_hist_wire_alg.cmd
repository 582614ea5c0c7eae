hist
$DATA/an_small.csv
--coll
bcast=linear,allreduce=ring
--by-call
