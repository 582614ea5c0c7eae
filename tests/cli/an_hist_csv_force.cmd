# --force replaces an existing --csv file
hist
$DATA/an_small.csv
--csv
$WORK/h.csv
--force
