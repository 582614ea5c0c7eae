info
$DATA/pending_leave.csv
