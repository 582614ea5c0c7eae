replay
$DATA/ompi_coll.csv
--coll
bcast=binomial
