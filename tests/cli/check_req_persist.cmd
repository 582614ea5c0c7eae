check
--class
request
$DATA/check_req_persist.csv
