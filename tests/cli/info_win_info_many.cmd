info
$DATA/win_info_many.csv
