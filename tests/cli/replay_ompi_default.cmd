replay
$DATA/ompi_coll.csv
