gateways
$DATA/an_small.csv
--coll
all=msa
--coll
all=linear
--coll
bcast=binomial
