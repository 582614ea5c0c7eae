check
$DATA/check_rma_ok.csv
