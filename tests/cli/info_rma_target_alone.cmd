info
$DATA/rma_target_alone.csv
