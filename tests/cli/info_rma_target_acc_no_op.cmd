info
$DATA/rma_target_acc_no_op.csv
