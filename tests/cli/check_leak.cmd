check
--class
leak
$DATA/check_leak.csv
