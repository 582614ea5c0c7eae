check
$DATA/check_rma_assert.csv
