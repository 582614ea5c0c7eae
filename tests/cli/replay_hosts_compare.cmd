replay
$DATA/hosts.csv
--compare
map:cyclic
--compare
coll:all=msa
