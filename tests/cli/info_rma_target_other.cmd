info
$DATA/rma_target_other.csv
