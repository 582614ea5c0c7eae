convert
$DATA/out_of_order.csv
$WORK/out-otf2
