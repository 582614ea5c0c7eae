check
$DATA/deadlock_coll_order.csv
