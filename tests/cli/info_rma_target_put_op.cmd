info
$DATA/rma_target_put_op.csv
