replay
$DATA/an_small.csv
--map
random:x
