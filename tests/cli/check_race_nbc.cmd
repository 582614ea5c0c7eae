check
$DATA/check_race_nbc.csv
