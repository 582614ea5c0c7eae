replay
$DATA/reserved_request.csv
