info
$DATA/win_name_no_win.csv
