info
$DATA/bad_number.csv
