check
$DATA/check_many_windows.csv
