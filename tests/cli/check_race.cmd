check
$DATA/check_race.csv
