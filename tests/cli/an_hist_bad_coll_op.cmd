hist
$DATA/an_small.csv
--coll
bcats=binomial
