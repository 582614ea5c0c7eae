replay
$DATA/ompi_coll.csv
--coll
all=mpich
