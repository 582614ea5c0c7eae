check
$DATA/check_coll_amounts.csv
