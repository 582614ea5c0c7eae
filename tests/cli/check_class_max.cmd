check
$DATA/check_rma_bad.csv
--class
rma-epoch,collective
--max
2
