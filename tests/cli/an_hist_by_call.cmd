hist
$DATA/an_small.csv
--by-call
--coll
--rma
