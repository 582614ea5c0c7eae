hist
$DATA/an_small.csv
--contype
infiniband
