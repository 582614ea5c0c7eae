# A bad value in a --compare alternative names the alternative and its key
replay
$DATA/an_small.csv
--compare
coll:all=x
