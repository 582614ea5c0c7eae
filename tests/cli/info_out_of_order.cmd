info
$DATA/out_of_order.csv
