check
$DATA/check_rma_conflict.csv
