replay
$DATA/an_small.csv
--nodes
1
--ranks-per-node
2
