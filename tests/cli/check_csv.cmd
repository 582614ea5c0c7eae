check
$DATA/check_coll_amounts.csv
--csv
$WORK/f.csv
