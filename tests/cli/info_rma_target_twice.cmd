info
$DATA/rma_target_twice.csv
