info
$DATA/vcounts_bad_op.csv
