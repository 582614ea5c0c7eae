check
$DATA/check_buffers.csv
--class
rma-conflict,rma-epoch
