hist
$DATA/an_small.csv
--level
wire
--coll
all=ompi
--per-rank
