info
$DATA/win_info_bad_key.csv
