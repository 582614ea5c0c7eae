check
--class
leak,request
$DATA/check_leak_comm.csv
