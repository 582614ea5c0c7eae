# --csv into a folder is refused, with --force too
hist
$DATA/an_small.csv
--csv
$WORK/d
--force
