hist
$DATA/an_small.csv
--coll
bcast=ring
