info
$DATA/vcounts_bad_order.csv
