# An existing --plot file is refused before the pass
profile
$DATA/an_small.csv
--plot
$WORK/p.svg
