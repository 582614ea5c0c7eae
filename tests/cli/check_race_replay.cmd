check
$DATA/check_race_replay.csv
