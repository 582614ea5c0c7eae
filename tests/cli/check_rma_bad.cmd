check
$DATA/check_rma_bad.csv
