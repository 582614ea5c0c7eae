# Nothing is overwritten without --force: an existing --csv file is refused before the pass
hist
$DATA/an_small.csv
--csv
$WORK/h.csv
