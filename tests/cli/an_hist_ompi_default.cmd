hist
$DATA/ompi_coll.csv
--level
wire
--per-rank
