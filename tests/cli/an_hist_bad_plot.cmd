hist
$DATA/an_small.csv
--plot
$WORK/h.jpg
