# no message of 64K or more: no chain (and nothing to sort)
pipeline
$DATA/coll3.csv
