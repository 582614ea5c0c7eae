replay
$DATA/an_small.csv
--plot
$WORK/p.svg
