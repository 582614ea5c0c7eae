info
$DATA/bad_event.csv
