hist
$DATA/ompi_coll.csv
--level
wire
--coll
all=mpich
--per-rank
