hist
$DATA/an_small.csv
--level
call
--coll
bcast=linear
